/* Skillyard search: loads search.json (a few hundred bytes per skill) and matches on the client.
 * Works for English and CJK alike: every term is matched as a lowercase substring, so "发票" finds a skill whose
 * description contains it anywhere in the indexed text; long CJK terms fall back to character bigrams.
 * Ranking: name > tags > description > body keywords. Results are built with textContent, never innerHTML.
 * Each result is something to act on: its title (the link), publisher, badges (own or pointer, verified, licence,
 * ships scripts), the description and the install line with a copy button. The results are a list; the arrow keys
 * move between the result links (and back to the box), Enter opens one, and the count is announced (aria-live). */
(function () {
  "use strict";
  var box = document.getElementById("sy-search");
  if (!box) return;
  var input = document.getElementById("sy-q");
  var status = document.getElementById("sy-status");
  var list = document.getElementById("sy-results");
  var copied = document.getElementById("sy-copied");
  var base = (box.getAttribute("data-base") || ".").replace(/\/$/, "");
  var MAX_RESULTS = 50;
  var CJK = /[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af\uf900-\ufaff]/;
  var POINTER = 1, VERIFIED = 2, SCRIPTS = 4;  // an entry's flags (site/search_index.py)
  var items = null;
  var loading = null;

  var NOT_ASCII = /[^\x00-\x7f]/;

  /* NFKC only where it can change something: at 20,000 skills normalising every ASCII field was most of the
     first search's preparation. */
  function norm(text) {
    text = text || "";
    return (NOT_ASCII.test(text) ? text.normalize("NFKC") : text).toLowerCase();
  }

  function load() {
    if (!loading) {
      loading = fetch(box.getAttribute("data-index"))
        .then(function (response) {
          if (!response.ok) throw new Error("search.json: HTTP " + response.status);
          return response.json();
        })
        .then(function (doc) {
          var tagNorm = doc.tags.map(norm), publishers = doc.publishers || [], licences = doc.licenses || [];
          items = doc.skills.map(function (s) {
            return {
              name: s[0], title: s[4] || s[0], desc: s[2], tags: s[1].map(function (i) { return doc.tags[i]; }),
              publisher: s[5] >= 0 ? publishers[s[5]] : null, licence: s[6] >= 0 ? licences[s[6]] : "",
              flags: s[7] || 0,
              n: norm(s[0]), t: norm(s[4] || ""), tl: s[1].map(function (i) { return tagNorm[i]; }),
              d: norm(s[2]), k: norm(s[3])
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

  function badge(text, kind) {
    return el("span", "sy-badge sy-badge--" + kind, text);
  }

  /* A comma only a screen reader reads, so "by Ada", "own" and "MIT" are not read as one phrase. */
  function pause() {
    return el("span", "sy-visually-hidden", ", ");
  }

  function announce(text) {
    if (!copied) return;
    copied.textContent = "";
    setTimeout(function () { copied.textContent = text; }, 50);
  }

  /* The clipboard API where the page may use it; else the selected text and the older copy command. */
  function copy(text, button) {
    var done = function () {
      button.textContent = "Copied";
      announce("Copied: " + text);
      setTimeout(function () { button.textContent = "Copy"; }, 2000);
    };
    var fallback = function () {
      var code = button.parentNode.querySelector("code");
      var range = document.createRange();
      range.selectNodeContents(code);
      var selection = window.getSelection();
      selection.removeAllRanges();
      selection.addRange(range);
      if (document.execCommand && document.execCommand("copy")) done();
      else announce("Press Ctrl+C to copy the selected command");
    };
    if (navigator.clipboard && navigator.clipboard.writeText) navigator.clipboard.writeText(text).then(done, fallback);
    else fallback();
  }

  function result(item) {
    var li = el("li", "sy-result");
    var head = el("div", "sy-result__head");
    var link = el("a", "sy-result__name", item.title);
    link.href = base + "/skills/" + encodeURIComponent(item.name) + "/";
    head.appendChild(link);
    if (item.title !== item.name) head.appendChild(el("span", "sy-muted sy-result__slug", " " + item.name));
    li.appendChild(head);
    var meta = el("div", "sy-result__meta");
    if (item.publisher) {
      var by = el("span", "sy-result__publisher", "by ");
      if (item.publisher[1]) {
        var page = el("a", "", item.publisher[0]);
        page.href = base + "/publishers/" + encodeURIComponent(item.publisher[1]) + "/";
        by.appendChild(page);
      } else {
        by.appendChild(document.createTextNode(item.publisher[0]));
      }
      meta.appendChild(by);
    }
    var badges = el("span", "sy-badges"), facts = [];
    facts.push(item.flags & POINTER ? badge("pointer", "pointer") : badge("own", "own"));
    if (item.flags & VERIFIED) facts.push(badge("reviewed", "reviewed"));
    if (item.licence) facts.push(badge(item.licence, "licence"));
    if (item.flags & SCRIPTS) facts.push(badge("ships scripts", "scripts"));
    facts.forEach(function (fact, i) {
      if (i || item.publisher) badges.appendChild(pause());
      badges.appendChild(fact);
    });
    meta.appendChild(badges);
    li.appendChild(meta);
    li.appendChild(el("p", "sy-result__desc", item.desc));
    var line = "skill install " + item.name;
    var install = el("div", "sy-result__install");
    install.appendChild(el("code", "", line));
    var button = el("button", "sy-copy", "Copy");
    button.type = "button";
    button.setAttribute("aria-label", "Copy: " + line);
    button.addEventListener("click", function () { copy(line, button); });
    install.appendChild(button);
    li.appendChild(install);
    return li;
  }

  function show(query) {
    var results = search(query);
    list.textContent = "";
    if (!query.trim()) { status.textContent = ""; list.hidden = true; return; }
    status.textContent = results.length === 0 ? "No skills match." :
      results.length + (results.length === 1 ? " skill" : " skills") +
      (results.length > MAX_RESULTS ? ", showing the first " + MAX_RESULTS : "");
    var fragment = document.createDocumentFragment();
    results.slice(0, MAX_RESULTS).forEach(function (r) { fragment.appendChild(result(r.item)); });
    list.appendChild(fragment);
    list.hidden = results.length === 0;
  }

  /* The arrow keys walk the result links: down from the box to the first, up from the first back to the box. */
  function links() {
    return Array.prototype.slice.call(list.querySelectorAll("a.sy-result__name"));
  }

  function move(event, from) {
    var all = links(), at = all.indexOf(from), next = null;
    if (event.key === "ArrowDown") next = from === input ? all[0] : all[at + 1];
    else if (event.key === "ArrowUp") next = at > 0 ? all[at - 1] : (at === 0 ? input : null);
    else if (event.key === "Home" && from !== input) next = all[0];
    else if (event.key === "End" && from !== input) next = all[all.length - 1];
    else return;
    if (next) { event.preventDefault(); next.focus(); }
  }

  list.addEventListener("keydown", function (event) {
    var link = event.target.closest && event.target.closest("a.sy-result__name");
    if (link) move(event, link);
  });

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
      var first = list.querySelector("a.sy-result__name");
      if (first) window.location.href = first.href;
    } else {
      move(event, input);
    }
  });
  var initial = new URLSearchParams(window.location.search).get("q");
  if (initial) { input.value = initial; update(); }
}());
