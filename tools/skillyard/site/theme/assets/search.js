/* Skillyard search: loads search.json (a few hundred bytes per skill, in columns: site/search_index.py) as the page
 * starts, and matches on the client.
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
  var index = null;  // the prepared columns (prepare), once search.json is in
  var loading = null;

  var NOT_ASCII = /[^\x00-\x7f]/;

  /* NFKC only where it can change something: most text is ASCII, and normalising it all was most of the first
     search's preparation at 20,000 skills. */
  function norm(text) {
    text = text || "";
    return (NOT_ASCII.test(text) ? text.normalize("NFKC") : text).toLowerCase();
  }

  /* Where each line of a "\n"-joined column starts: starts[i] for skill i, starts[count] one past the end. */
  function lineStarts(text, count) {
    var starts = new Int32Array(count + 1), at = 0;
    for (var i = 0; i < count; i++) {
      starts[i] = at;
      var next = text.indexOf("\n", at);
      at = next < 0 ? text.length + 1 : next + 1;
    }
    starts[count] = text.length + 1;
    return starts;
  }

  /* A column as shown (lines) and as matched (the same lines normalised: NFKC and lower case can change a line's
     length, so the matched text keeps its own line starts). One native call each, not one per skill. */
  function column(text, count) {
    var matched = norm(text);
    return { text: text, starts: lineStarts(text, count), hay: matched, hayStarts: matched === text ? null : lineStarts(matched, count) };
  }

  function line(col, i) {
    return col.text.slice(col.starts[i], col.starts[i + 1] - 1);
  }

  /* The skill whose line holds position `pos` of a column's matched text (binary search over the line starts). */
  function owner(starts, pos) {
    var lo = 0, hi = starts.length - 2;
    while (lo < hi) {
      var mid = (lo + hi + 1) >> 1;
      if (starts[mid] <= pos) lo = mid; else hi = mid - 1;
    }
    return lo;
  }

  function prepare(doc) {
    var count = doc.count, tagNorm = doc.tags.map(norm);
    return {
      count: count, tags: doc.tags, tagNorm: tagNorm, publishers: doc.publishers || [], licences: doc.licenses || [],
      names: column(doc.names, count), titles: column(doc.titles, count),
      descs: column(doc.descriptions, count), keywords: column(doc.keywords, count),
      skillTags: doc.skill_tags, facts: doc.facts
    };
  }

  /* Fetched as soon as the page runs (a <link rel=preload> in the page head has usually brought it already), and
     prepared before anyone types: the first keystroke only matches and draws. */
  function load() {
    if (!loading) {
      loading = fetch(box.getAttribute("data-index"))
        .then(function (response) {
          if (!response.ok) throw new Error("search.json: HTTP " + response.status);
          return response.json();
        })
        .then(function (doc) {
          if (doc.v !== 3) throw new Error("search.json: unknown version " + doc.v);
          index = prepare(doc);
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

  /* Every skill whose matched line of `col` contains `needle`: calls found(skill, position in its line). One scan
     of the whole column. */
  function scan(col, needle, found) {
    var hay = col.hay, starts = col.hayStarts || col.starts, pos = hay.indexOf(needle);
    while (pos >= 0) {
      var i = owner(starts, pos);
      found(i, pos - starts[i]);
      pos = hay.indexOf(needle, pos + 1);
    }
  }

  function lineLength(col, i) {
    var starts = col.hayStarts || col.starts;
    return starts[i + 1] - 1 - starts[i];
  }

  /* The share of a long CJK term's character pairs found in a skill's description or title (the better of that
     and its keywords'), for skills where the term itself is not found. */
  function bigramShares(term) {
    var total = term.length - 1, inText = new Uint16Array(index.count), inKw = new Uint16Array(index.count);
    var seen = new Int32Array(index.count).fill(-1), seenKw = new Int32Array(index.count).fill(-1);
    for (var b = 0; b < total; b++) {
      var pair = term.substr(b, 2);
      var mark = function (i) { if (seen[i] !== b) { seen[i] = b; inText[i]++; } };
      scan(index.descs, pair, mark);
      scan(index.titles, pair, mark);
      scan(index.keywords, pair, function (i) { if (seenKw[i] !== b) { seenKw[i] = b; inKw[i]++; } });
    }
    return function (i) { return Math.max(inText[i], inKw[i]) / total; };
  }

  /* Per skill, the best field decides (name 60-100, tags 40-50, description 20, body keywords 10); every further
     field that also matches adds a little, so "pdf" ranks pdf-tools (name and tag) above a skill with "pdf" only in
     its name. Returns an array of scores, 0 where the term is not found. */
  function termScores(term) {
    var n = index.count, name = new Uint8Array(n), desc = new Uint8Array(n), kw = new Uint8Array(n);
    var scores = new Int32Array(n), len = term.length;
    scan(index.names, term, function (i, at) {
      var level = at === 0 ? (len === lineLength(index.names, i) ? 100 : 80) : 60;
      if (level > name[i]) name[i] = level;
    });
    scan(index.titles, term, function (i) { if (!name[i]) name[i] = 60; });
    scan(index.descs, term, function (i) { desc[i] = 20; });
    scan(index.keywords, term, function (i) { kw[i] = 10; });
    var tagLevel = index.tagNorm.map(function (t) { return t === term ? 50 : (t.indexOf(term) >= 0 ? 40 : 0); });
    var share = CJK.test(term) && len > 2 ? bigramShares(term) : null;
    for (var i = 0; i < n; i++) {
      var tag = 0, own = index.skillTags[i];
      for (var k = 0; k < own.length; k++) if (tagLevel[own[k]] > tag) tag = tagLevel[own[k]];
      var d = desc[i];
      if (!d && !kw[i] && share) {
        var s = share(i);
        if (s >= 0.6) d = Math.round(12 * s);
      }
      var best = Math.max(name[i], tag, d, kw[i]);
      if (!best) continue;
      scores[i] = best + (name[i] && best !== name[i] ? 6 : 0) + (tag && best !== tag ? 4 : 0) +
        (d && best !== d ? 2 : 0) + (kw[i] && best !== kw[i] ? 1 : 0);
    }
    return scores;
  }

  /* What a result shows, read from the columns for the few skills drawn. */
  function item(i) {
    var f = index.facts, name = line(index.names, i), title = line(index.titles, i);
    return {
      name: name, title: title || name, desc: line(index.descs, i),
      publisher: f[3 * i] >= 0 ? index.publishers[f[3 * i]] : null,
      licence: f[3 * i + 1] >= 0 ? index.licences[f[3 * i + 1]] : "", flags: f[3 * i + 2] || 0
    };
  }

  function search(query) {
    var q = parse(query), out = [];
    if (!q.terms.length && !q.tags.length) return out;
    var n = index.count, total = new Int32Array(n), alive = new Uint8Array(n).fill(1);
    if (q.tags.length) {
      for (var i = 0; i < n; i++) {
        var own = index.skillTags[i];
        for (var f = 0; f < q.tags.length && alive[i]; f++) {
          var has = false;
          for (var k = 0; k < own.length; k++) if (index.tagNorm[own[k]] === q.tags[f]) { has = true; break; }
          if (!has) alive[i] = 0;
        }
      }
    }
    q.terms.forEach(function (term) {
      var scores = termScores(term);
      for (var j = 0; j < n; j++) {
        if (!scores[j]) alive[j] = 0; else total[j] += scores[j];
      }
    });
    for (var s = 0; s < n; s++) if (alive[s]) out.push({ at: s, score: total[s] });
    out.sort(function (a, b) { return b.score - a.score || a.at - b.at; });  // ties: registry (name) order
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
    results.slice(0, MAX_RESULTS).forEach(function (r) { fragment.appendChild(result(item(r.at))); });
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

  var timer = null, lastRun = -Infinity, PAUSE = 80;
  function update() {
    var query = input.value;
    lastRun = performance.now();
    load().then(function () {
      show(query);
      var url = new URL(window.location.href);
      if (query.trim()) url.searchParams.set("q", query); else url.searchParams.delete("q");
      window.history.replaceState(null, "", url.toString());
    }).catch(function (error) {
      status.textContent = "Search is unavailable: " + error.message;
    });
  }

  /* The first keystroke searches at once; while someone types fast, at most one search per PAUSE ms, the last
     one with what the box holds by then. */
  input.addEventListener("input", function () {
    clearTimeout(timer);
    var wait = lastRun + PAUSE - performance.now();
    if (wait <= 0) update(); else timer = setTimeout(update, wait);
  });
  input.addEventListener("keydown", function (event) {
    if (event.key === "Enter") {
      var first = list.querySelector("a.sy-result__name");
      if (first) window.location.href = first.href;
    } else {
      move(event, input);
    }
  });
  var initial = new URLSearchParams(window.location.search).get("q");
  if (initial) { input.value = initial; update(); } else load().catch(function () {});
}());
