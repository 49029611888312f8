// The suspects table: sort by a column, filter by text, decision and class,
// page through. State lives in the address (#suspects?q=...&decision=...),
// so a reviewer can share a view. No network, no library.
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("suspect-data").textContent);
  var table = document.getElementById("suspect-table");
  var body = table.tBodies[0];
  var filter = document.getElementById("suspect-filter");
  var decision = document.getElementById("suspect-decision");
  var observed = document.getElementById("suspect-class");
  var count = document.getElementById("suspect-count");
  var prev = document.getElementById("suspect-prev");
  var next = document.getElementById("suspect-next");
  var pageSize = 100;
  var state = { q: "", decision: "", cls: "", sort: "rank", desc: false, page: 0 };
  var col = {};
  data.columns.forEach(function (name, i) { col[name] = i; });
  var text = data.rows.map(function (row) { return row.join(" ").toLowerCase(); });

  function readHash() {
    var hash = window.location.hash;
    var at = hash.indexOf("?");
    if (at < 0) { return; }
    new URLSearchParams(hash.slice(at + 1)).forEach(function (value, key) {
      if (key === "q") { state.q = value; }
      if (key === "decision") { state.decision = value; }
      if (key === "class") { state.cls = value; }
      if (key === "sort" && value in col) { state.sort = value; }
      if (key === "desc") { state.desc = value === "1"; }
      if (key === "page") { state.page = Math.max(0, parseInt(value, 10) || 0); }
    });
  }

  function writeHash() {
    var params = new URLSearchParams();
    if (state.q) { params.set("q", state.q); }
    if (state.decision) { params.set("decision", state.decision); }
    if (state.cls) { params.set("class", state.cls); }
    if (state.sort !== "rank" || state.desc) {
      params.set("sort", state.sort);
      params.set("desc", state.desc ? "1" : "0");
    }
    if (state.page) { params.set("page", String(state.page)); }
    var query = params.toString();
    try {
      history.replaceState(null, "", "#suspects" + (query ? "?" + query : ""));
    } catch (e) { /* some viewers forbid it; the view still works */ }
  }

  function compare(a, b) {
    var x = a[col[state.sort]], y = b[col[state.sort]];
    var result;
    if (typeof x === "number" && typeof y === "number") { result = x - y; }
    else if (x === null || x === undefined) { result = 1; }
    else if (y === null || y === undefined) { result = -1; }
    else { result = String(x).localeCompare(String(y), undefined, { numeric: true }); }
    if (result === 0) { result = a[0] - b[0]; return result; }
    return state.desc ? -result : result;
  }

  function cell(value, numeric, clipped) {
    var td = document.createElement("td");
    if (numeric) { td.className = "num"; }
    var text = value === null || value === undefined ? "–" : String(value);
    if (clipped) {  // a wide table's values scroll inside a few lines
      var div = document.createElement("div");
      div.className = "clip";
      div.textContent = text;
      td.appendChild(div);
    } else { td.textContent = text; }
    return td;
  }

  function render(remember) {
    var q = state.q.toLowerCase();
    var rows = [];
    for (var i = 0; i < data.rows.length; i++) {
      var row = data.rows[i];
      if (state.decision && row[col.decision] !== state.decision) { continue; }
      if (state.cls && String(row[col.observed]) !== state.cls) { continue; }
      if (q && text[i].indexOf(q) < 0) { continue; }
      rows.push(row);
    }
    rows.sort(compare);
    var pages = Math.max(1, Math.ceil(rows.length / pageSize));
    state.page = Math.min(state.page, pages - 1);
    var shown = rows.slice(state.page * pageSize, (state.page + 1) * pageSize);
    var fragment = document.createDocumentFragment();
    shown.forEach(function (row) {
      var tr = document.createElement("tr");
      data.columns.forEach(function (name, i) {
        var td = cell(row[i], data.numeric.indexOf(name) >= 0, name === "features");
        td.dataset.label = name;
        if (name === "decision") { td.className = "decision-" + row[i]; }
        if (name === "why" || name === "features") { td.className = "long"; }
        tr.appendChild(td);
      });
      fragment.appendChild(tr);
    });
    body.replaceChildren(fragment);
    count.textContent = rows.length + " of " + data.rows.length + " row(s)" +
      (rows.length ? ", page " + (state.page + 1) + " of " + pages : "");
    prev.disabled = state.page === 0;
    next.disabled = state.page >= pages - 1;
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th) {
      var sorted = th.dataset.key === state.sort;
      th.setAttribute("aria-sort", sorted ? (state.desc ? "descending" : "ascending") : "none");
    });
    table.dataset.shown = String(rows.length);
    if (remember) { writeHash(); }  // not on load: opening the page changes nothing
  }

  readHash();
  filter.value = state.q;
  decision.value = state.decision;
  observed.value = state.cls;
  filter.addEventListener("input", function () { state.q = filter.value; state.page = 0; render(true); });
  decision.addEventListener("change", function () { state.decision = decision.value; state.page = 0; render(true); });
  observed.addEventListener("change", function () { state.cls = observed.value; state.page = 0; render(true); });
  prev.addEventListener("click", function () { state.page -= 1; render(true); });
  next.addEventListener("click", function () { state.page += 1; render(true); });
  Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th) {
    th.addEventListener("click", function () {
      var key = th.dataset.key;
      state.desc = state.sort === key ? !state.desc : false;
      state.sort = key;
      render(true);
    });
  });
  document.getElementById("suspect-controls").hidden = false;
  render();
})();
