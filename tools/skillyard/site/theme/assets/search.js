/* Skillyard search: loads search.json (a few hundred bytes per skill) and matches on the client.
 * Works for English and CJK alike: every term is matched as a lowercase substring, so "发票" finds a skill whose
 * description contains it anywhere in the indexed text; long CJK terms fall back to character bigrams.
 * Ranking: name > tags > description > body keywords. Results are built with textContent, never innerHTML. */
(function () {
  "use strict";
  var box = document.getElementById("sy-search");
  if (!box) return;
  var input = document.getElementById("sy-q");
  var status = document.getElementById("sy-status");
  var list = document.getElementById("sy-results");
  var base = (box.getAttribute("data-base") || ".").replace(/\/$/, "");
  var MAX_RESULTS = 50;
  var CJK = /[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af\uf900-\ufaff]/;
  var items = null;
  var loading = null;

  function norm(text) {
    return (text || "").normalize("NFKC").toLowerCase();
  }

  function load() {
    if (!loading) {
      loading = fetch(box.getAttribute("data-index"))
        .then(function (response) {
          if (!response.ok) throw new Error("search.json: HTTP " + response.status);
          return response.json();
        })
        .then(function (doc) {
          items = doc.skills.map(function (s) {
            var tags = s[1].map(function (i) { return doc.tags[i]; });
            return {
              name: s[0], title: s[4] || s[0], desc: s[2], tags: tags,
              n: norm(s[0]), t: norm(s[4] || ""), tl: tags.map(norm), d: norm(s[2]), k: norm(s[3])
            };
          });
        });
    }
    return loading;
  }

  /* Split "pdf发票 tag:docs" into filters and terms; a term mixing scripts splits at the boundary. */
  function parse(query) {
    var terms = [], tags = [];
    norm(query).split(/\s+/).forEach(function (word) {
      if (!word) return;
      if (word.indexOf("tag:") === 0 && word.length > 4) { tags.push(word.slice(4)); return; }
      (word.match(/[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af\uf900-\ufaff]+|[^\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af\uf900-\ufaff]+/g) || [])
        .forEach(function (part) { terms.push(part); });
    });
    return { terms: terms, tags: tags };
  }

  function bigramShare(term, text) {
    var hits = 0, total = term.length - 1;
    for (var i = 0; i < total; i++) if (text.indexOf(term.substr(i, 2)) >= 0) hits++;
    return total > 0 ? hits / total : 0;
  }

  /* The best field decides (name 60-100, tags 40-50, description 20, body keywords 10); every further field that
     also matches adds a little, so "pdf" ranks pdf-tools (name and tag) above a skill with "pdf" only in its name. */
  function termScore(item, term) {
    var name = 0, tag = 0, desc = 0, kw = 0;
    if (item.n === term) name = 100;
    else if (item.n.indexOf(term) === 0) name = 80;
    else if (item.n.indexOf(term) >= 0 || item.t.indexOf(term) >= 0) name = 60;
    for (var i = 0; i < item.tl.length; i++) {
      if (item.tl[i] === term) { tag = 50; break; }
      if (item.tl[i].indexOf(term) >= 0) tag = 40;
    }
    if (item.d.indexOf(term) >= 0) desc = 20;
    if (item.k.indexOf(term) >= 0) kw = 10;
    if (!desc && !kw && CJK.test(term) && term.length > 2) {
      var share = Math.max(bigramShare(term, item.d + " " + item.t), bigramShare(term, item.k));
      if (share >= 0.6) desc = Math.round(12 * share);
    }
    var best = Math.max(name, tag, desc, kw);
    if (!best) return 0;
    return best + (name && best !== name ? 6 : 0) + (tag && best !== tag ? 4 : 0) +
      (desc && best !== desc ? 2 : 0) + (kw && best !== kw ? 1 : 0);
  }

  function search(query) {
    var q = parse(query), out = [];
    if (!q.terms.length && !q.tags.length) return out;
    items.forEach(function (item) {
      for (var f = 0; f < q.tags.length; f++) if (item.tl.indexOf(q.tags[f]) < 0) return;
      var score = 0;
      for (var t = 0; t < q.terms.length; t++) {
        var s = termScore(item, q.terms[t]);
        if (!s) return;
        score += s;
      }
      out.push({ item: item, score: score });
    });
    out.sort(function (a, b) { return b.score - a.score || (a.item.name < b.item.name ? -1 : 1); });
    return out;
  }

  function el(tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text) node.textContent = text;
    return node;
  }

  function show(query) {
    var results = search(query);
    list.textContent = "";
    if (!query.trim()) { status.textContent = ""; return; }
    status.textContent = results.length === 0 ? "No skills match." :
      results.length + (results.length === 1 ? " skill" : " skills") +
      (results.length > MAX_RESULTS ? ", showing the first " + MAX_RESULTS : "");
    results.slice(0, MAX_RESULTS).forEach(function (r) {
      var li = el("li", "sy-result");
      var link = el("a", "sy-result__name", r.item.title);
      link.href = base + "/skills/" + encodeURIComponent(r.item.name) + "/";
      li.appendChild(link);
      if (r.item.title !== r.item.name) li.appendChild(el("span", "sy-muted", " " + r.item.name));
      li.appendChild(el("div", "sy-result__desc", r.item.desc));
      if (r.item.tags.length) {
        var tags = el("div", "sy-result__tags");
        r.item.tags.forEach(function (tag) { tags.appendChild(el("span", "sy-tag", tag)); });
        li.appendChild(tags);
      }
      list.appendChild(li);
    });
  }

  var timer = null;
  function update() {
    var query = input.value;
    load().then(function () {
      show(query);
      var url = new URL(window.location.href);
      if (query.trim()) url.searchParams.set("q", query); else url.searchParams.delete("q");
      window.history.replaceState(null, "", url.toString());
    }).catch(function (error) {
      status.textContent = "Search is unavailable: " + error.message;
    });
  }

  input.addEventListener("input", function () {
    clearTimeout(timer);
    timer = setTimeout(update, 80);
  });
  input.addEventListener("focus", function () { load().catch(function () {}); }, { once: true });
  input.addEventListener("keydown", function (event) {
    if (event.key === "Enter") {
      var first = list.querySelector("a");
      if (first) window.location.href = first.href;
    }
  });
  var initial = new URLSearchParams(window.location.search).get("q");
  if (initial) { input.value = initial; update(); }
}());
