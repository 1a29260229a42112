// Shows a program's regions on click (graph node or table row) from the
// embedded data, with text nodes only; embedded at build time.
(function () {
  var data = JSON.parse(document.getElementById('hwagent-data').textContent);
  function cell(row, text, left) {
    var td = document.createElement('td');
    td.textContent = text;
    if (left) td.className = 'l';
    row.appendChild(td);
  }
  function show(f, p) {
    var fn = data.functions[f];
    var panel = document.getElementById('details-' + f);
    if (!fn || !panel) return;
    while (panel.firstChild) panel.removeChild(panel.firstChild);
    var program = fn.programs[p];
    var h = document.createElement('h3');
    h.textContent = program ? program.description : 'program ' + p;
    panel.appendChild(h);
    var table = document.createElement('table');
    table.className = 'regions';
    var head = document.createElement('tr');
    ['region', 'phase', 'location', 'FLOPs', 'bytes', 'cost per backend (alone)', 'why here'].forEach(function (t) {
      var th = document.createElement('th'); th.textContent = t; th.className = 'l'; head.appendChild(th);
    });
    table.appendChild(head);
    var shown = 0;
    fn.regions.forEach(function (r) {
      if (r.program !== p) return;
      var row = document.createElement('tr');
      cell(row, 'r' + r.id, true);
      cell(row, r.phase || '', true);
      cell(row, r.location || '', true);
      cell(row, String(r.flops || 0));
      cell(row, String(r.bytes || 0));
      var costs = [];
      Object.keys(r.costs || {}).forEach(function (b) {
        var c = r.costs[b];
        costs.push(b + ' ' + (c.legal ? c.text : 'illegal: ' + c.reason));
      });
      cell(row, costs.join('; '), true);
      cell(row, r.explanation || '', true);
      table.appendChild(row);
      ++shown;
    });
    panel.appendChild(table);
    if (!shown) {
      var note = document.createElement('p');
      note.className = 'note';
      note.textContent = 'Region details are not embedded for this program (see the JSON report).';
      panel.appendChild(note);
    }
    document.querySelectorAll('tr.selected').forEach(function (tr) { tr.classList.remove('selected'); });
    var tr = document.querySelector('tr[data-function="' + f + '"][data-program="' + p + '"]');
    if (tr) tr.classList.add('selected');
  }
  document.querySelectorAll('g.node').forEach(function (g) {
    var m = /^prog-(\d+)-(\d+)$/.exec(g.id);
    if (!m) return;
    g.classList.add('program');
    g.addEventListener('click', function () { show(+m[1], +m[2]); });
  });
  document.querySelectorAll('tr[data-program]').forEach(function (tr) {
    tr.addEventListener('click', function () {
      show(+tr.getAttribute('data-function'), +tr.getAttribute('data-program'));
    });
  });
  // #show-<function>-<program> opens that program's details.
  var m = /^#show-(\d+)-(\d+)$/.exec(window.location.hash);
  if (m) show(+m[1], +m[2]);
  document.body.setAttribute('data-report-ready', '1');
})();
