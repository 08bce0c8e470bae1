/* Keyboard reach for the menu button: Material's is a <label> for the drawer's checkbox, which the keyboard could
 * not reach (Material clicks a focused label on Enter). It gets a Tab stop, a name and its open/closed state.
 *
 * Keyboard reach for regions that scroll sideways (WCAG 2.1.1): a code block or a table wider than the screen gets
 * tabindex="0", so a keyboard user can focus it and scroll it with the arrow keys. Material does this for code
 * blocks only on devices that can hover, so on a phone (or a tablet with a keyboard) they were out of reach; the
 * tables Material wraps were never reachable. Re-checked when a region's size changes; a region that fits again
 * loses the tab stop we gave it. */
(function () {
  "use strict";
  var SELECTOR = ".md-typeset pre > code, .md-typeset__scrollwrap";
  var MARK = "data-sy-reach";

  function reach(el) {
    var scrolls = el.scrollWidth > el.clientWidth + 1 || el.scrollHeight > el.clientHeight + 1;
    if (scrolls && el.getAttribute("tabindex") !== "0") {
      el.setAttribute("tabindex", "0");
      el.setAttribute(MARK, "");
    } else if (!scrolls && el.hasAttribute(MARK)) {
      el.removeAttribute("tabindex");
      el.removeAttribute(MARK);
    }
  }

  function menuButton() {
    var drawer = document.getElementById("__drawer");
    var button = document.querySelector('.md-header label.md-header__button[for="__drawer"]');
    if (!drawer || !button) return;
    button.setAttribute("tabindex", "0");
    button.setAttribute("role", "button");
    button.setAttribute("aria-label", "Navigation menu");
    var state = function () { button.setAttribute("aria-expanded", drawer.checked ? "true" : "false"); };
    button.addEventListener("keydown", function (event) {
      if (event.key === " ") { event.preventDefault(); button.click(); }  // Enter: Material clicks the label
    });
    drawer.addEventListener("change", state);
    state();
  }

  // Material gives each code block a <nav> for its copy button, all unnamed: landmarks need distinct names.
  function nameCodeNavs() {
    document.querySelectorAll(".md-code__nav").forEach(function (nav, i) {
      if (!nav.hasAttribute("aria-label")) nav.setAttribute("aria-label", "Code block " + (i + 1));
    });
  }

  function start() {
    menuButton();
    nameCodeNavs();
    var regions = Array.prototype.slice.call(document.querySelectorAll(SELECTOR));
    // After the theme's own handler (it drops the tab stop of code blocks where the device cannot hover).
    var later = function (entries) {
      setTimeout(function () { entries.forEach(function (e) { reach(e.target || e); }); }, 0);
    };
    if ("ResizeObserver" in window) {
      var sizes = new ResizeObserver(later);
      regions.forEach(function (el) { sizes.observe(el); });
    }
    if ("MutationObserver" in window) {
      var changes = new MutationObserver(later);
      regions.forEach(function (el) { changes.observe(el, {attributes: true, attributeFilter: ["tabindex"]}); });
    }
    later(regions);
  }

  // Material wraps tables and mounts code blocks on DOMContentLoaded; start after it.
  if (document.readyState === "complete") start(); else window.addEventListener("load", start);
})();
