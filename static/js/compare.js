// The compare page's significance tests run in a worker: while any is pending,
// fetch this page again every two seconds and swap in its tests section.
(function () {
  "use strict";
  var tries = 0;
  function poll() {
    var section = document.getElementById("significance");
    if (!section || !section.dataset.pending || tries++ > 60) return;
    fetch(window.location.href, { credentials: "same-origin", headers: { Accept: "text/html" } })
      .then(function (response) { return response.ok ? response.text() : Promise.reject(response.status); })
      .then(function (html) {
        var fresh = new DOMParser().parseFromString(html, "text/html").getElementById("significance");
        if (fresh) section.replaceWith(fresh);
        window.setTimeout(poll, 2000);
      })
      .catch(function () { window.setTimeout(poll, 4000); });
  }
  window.setTimeout(poll, 1500);
})();
