// Render the server-built Plotly figures of the page when they scroll into view.
// Each chart is a <div data-chart="ID"> next to a <script type="application/json" id="ID">
// data block holding fig.to_json() (CSP allows data blocks; it forbids inline code).
// Lazy: plotly.js (4.8 MB) is fetched only when the first chart comes near the window, and
// each chart is drawn when it does, so the table above is usable at once. ?charts=eager (or
// window.chartsEager, or a browser without IntersectionObserver) draws every chart at load;
// bench/charts.py times both.
// On small screens the mode bar is hidden (it would cover the title). The legend sits above the
// plot, under the title: the top margin and the height grow by one line per row of entries, so
// the legend meets neither the title nor the plot, and the plot keeps its size.
(function () {
  "use strict";

  var SMALL = "(max-width: 640px)";

  function legendEntries(figure) {
    var layout = figure.layout || {};
    if (layout.showlegend === false) { return 0; }
    return (figure.data || []).filter(function (trace) {
      return trace.showlegend !== false && trace.name && trace.type !== "heatmap";
    }).length;
  }

  // An axis labelled by an explicit tick list (long class names cut server-side) is not thinned by
  // plotly: keep every k-th label so slanted labels do not overprint (hover still names each cell).
  function thinTicks(layout, most) {
    Object.keys(layout).forEach(function (key) {
      var axis = layout[key];
      if (!/^xaxis\d*$/.test(key) || !axis || axis.tickmode !== "array" || !axis.tickvals) { return; }
      var step = Math.ceil(axis.tickvals.length / most);
      if (step < 2) { return; }
      var keep = function (_, i) { return i % step === 0; };
      axis.tickvals = axis.tickvals.filter(keep);
      axis.ticktext = (axis.ticktext || []).filter(keep);
    });
  }

  // Plotly titles do not wrap: break a long one into lines of about ``width`` characters.
  function wrapTitle(text, width) {
    var words = String(text).split(" ");
    var lines = [""];
    words.forEach(function (word) {
      var last = lines.length - 1;
      if (lines[last] && (lines[last] + " " + word).length > width) { lines.push(word); }
      else { lines[last] = lines[last] ? lines[last] + " " + word : word; }
    });
    return lines;
  }

  // Fields of a trace that carry names people typed (methods, teams, class labels). Plotly
  // renders a subset of HTML in them (<a href>, <b>, <br>); escaped, they read as typed.
  // hovertemplate is the site's own and keeps its markup.
  var TEXT_FIELDS = ["name", "text", "hovertext", "x", "y", "customdata", "labels"];

  function plain(value) {
    if (typeof value === "string") {
      return value.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
    }
    return Array.isArray(value) ? value.map(plain) : value;
  }

  function asPlainText(traces) {
    traces.forEach(function (trace) {
      TEXT_FIELDS.forEach(function (field) {
        if (field in trace) { trace[field] = plain(trace[field]); }
      });
    });
    return traces;
  }

  function render(element) {
    var block = document.getElementById(element.getAttribute("data-chart"));
    if (!block || element.getAttribute("data-rendered")) {
      return;
    }
    var figure = JSON.parse(block.textContent);
    var layout = figure.layout || {};
    var small = window.matchMedia && window.matchMedia(SMALL).matches;
    var entries = legendEntries(figure);
    var legendLines = entries > 1 ? Math.ceil(entries / (small ? 2 : 4)) : 0;
    thinTicks(layout, small ? 8 : 30);
    if (small) {
      layout.margin = Object.assign({}, layout.margin || {}, { l: 50, r: 10 });
      var title = Object.assign({}, layout.title || {}, { font: { size: 14 } });
      if (title.text) {
        var lines = wrapTitle(title.text, 34);
        title.text = lines.join("<br>");
        layout.margin.t = Math.max(layout.margin.t || 70, 30 + 20 * lines.length);
        // Anchored at the very top with a pad: plotly lifts a wrapped title by about 10 px per extra
        // line, so at y 0.98 its first line was drawn above the chart. 10 px a line keeps it ~7 px below.
        title.y = 1;
        title.yanchor = "top";
        title.pad = { t: 10 * lines.length };
      }
      layout.title = title;
    }
    if (legendLines) {
      // About one row per 2 entries on a phone, per 4 on a desktop, 22 px a row.
      layout.margin = Object.assign({}, layout.margin || {});
      layout.margin.t = (layout.margin.t || 70) + 22 * legendLines;
      layout.height = (layout.height || 380) + 22 * legendLines;
    }
    if (layout.height) { element.style.minHeight = layout.height + "px"; }
    var config = { responsive: true, displaylogo: false, displayModeBar: small ? false : "hover" };
    window.Plotly.newPlot(element, asPlainText(figure.data || []), layout, config).then(function () {
      element.setAttribute("data-rendered", "1");
    });
  }

  var plotlyLoading = null;

  // plotly.js, loaded once, on demand, from the URL charts.js's own tag names (data-plotly).
  function withPlotly(callback) {
    if (window.Plotly) { callback(); return; }
    if (!plotlyLoading) {
      var own = document.getElementById("charts-script");
      var url = own && own.getAttribute("data-plotly");
      if (!url) { return; }
      plotlyLoading = [];
      var tag = document.createElement("script");
      tag.src = url;
      tag.onload = function () { plotlyLoading.forEach(function (f) { f(); }); plotlyLoading = []; };
      // If it does not load, the tables under each chart still hold the numbers.
      document.head.appendChild(tag);
    }
    plotlyLoading.push(callback);
  }

  function eager() {
    return window.chartsEager === true || /[?&]charts=eager(&|$)/.test(window.location.search) ||
      !("IntersectionObserver" in window);
  }

  var observer = null;

  function renderAll() {
    var pending = Array.prototype.filter.call(document.querySelectorAll("[data-chart]"), function (el) {
      return !el.getAttribute("data-rendered");
    });
    if (!pending.length) { return; }
    if (eager()) {
      withPlotly(function () { pending.forEach(render); });
      return;
    }
    if (!observer) {
      // 300 px ahead of the window: a chart is usually drawn before it is seen.
      observer = new IntersectionObserver(function (entries) {
        entries.forEach(function (entry) {
          if (!entry.isIntersecting) { return; }
          observer.unobserve(entry.target);
          withPlotly(function () { render(entry.target); });
        });
      }, { rootMargin: "300px 0px" });
    }
    pending.forEach(function (el) { observer.observe(el); });
  }

  // The live submission page calls renderCharts after swapping in its report; renderAllCharts
  // draws every chart now (printing, tests that read every chart).
  window.renderCharts = renderAll;
  window.renderAllCharts = function () {
    window.chartsEager = true;
    renderAll();
  };

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", renderAll);
  } else {
    renderAll();
  }
})();
