// Render every server-built Plotly figure on the page.
// Each chart is a <div data-chart="ID"> next to a <script type="application/json" id="ID">
// data block holding fig.to_json() (CSP allows data blocks; it forbids inline code).
(function () {
  "use strict";

  function render(element) {
    var block = document.getElementById(element.getAttribute("data-chart"));
    if (!block || element.getAttribute("data-rendered")) {
      return;
    }
    var figure = JSON.parse(block.textContent);
    var config = { responsive: true, displaylogo: false };
    window.Plotly.newPlot(element, figure.data || [], figure.layout || {}, config).then(function () {
      element.setAttribute("data-rendered", "1");
    });
  }

  function renderAll() {
    if (!window.Plotly) {
      return; // plotly.js did not load: the tables under each chart still hold the numbers
    }
    document.querySelectorAll("[data-chart]").forEach(render);
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", renderAll);
  } else {
    renderAll();
  }
})();
