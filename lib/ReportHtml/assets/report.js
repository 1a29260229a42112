// The report page's script (docs/report.md), embedded at build time: a
// program's details next to what was clicked (card, timeline bar or table
// row), a hover line, search, regrouping and collapsing of the cards, their
// pan and zoom, the timeline's zoom and the run charts' smoothing. Text
// nodes only.
(function () {
  var data = JSON.parse(document.getElementById('hwagent-data').textContent);
  var popover = document.getElementById('popover');
  var hover = document.getElementById('hover');
  var current = null; // what the open details belong to
  // A comparison's other side ('b') has its own programs (data.compared).
  function fns(set) { return set === 'b' ? data.compared || [] : data.functions; }
  function el(tag, text, cls) {
    var e = document.createElement(tag);
    if (text !== undefined) e.textContent = text;
    if (cls) e.className = cls;
    return e;
  }
  function cell(row, text) { row.appendChild(el('td', text, 'l')); }
  function programTitle(f, p, set) {
    var pr = fns(set)[f].programs[p];
    if (!pr) return 'program ' + p;
    return '#' + p + ' on ' + pr.backend + ', ' + pr.time +
      (pr.phase ? ', ' + pr.phase : '') + ', ' + pr.regions + (pr.regions === 1 ? ' region' : ' regions');
  }
  function name(p) { return p < 0 ? 'the host' : '#' + p; }

  // The details: the program, its boundaries and its regions.
  function fill(f, p, set) {
    var fn = fns(set)[f], pr = fn.programs[p];
    while (popover.firstChild) popover.removeChild(popover.firstChild);
    var close = el('button', '\u00d7', 'close');
    close.type = 'button';
    close.setAttribute('aria-label', 'close');
    close.addEventListener('click', hide);
    popover.appendChild(close);
    popover.appendChild(el('h3', (set === 'b' ? 'B: ' : '') + programTitle(f, p, set)));
    if (!pr) return;
    if (pr.ops) popover.appendChild(el('p', 'Ops: ' + pr.ops));
    if (pr.layers) popover.appendChild(el('p', 'Layers: ' + pr.layers));
    popover.appendChild(el('p', pr.description, 'note'));
    var flows = pr.boundaries.map(function (b) {
      return (b.to === p ? 'in from ' + name(b.from) : 'out to ' + name(b.to)) + ' ' + b.bytes +
        (b.seconds ? ' (' + b.seconds + ')' : '');
    });
    if (flows.length) popover.appendChild(el('p', 'Boundaries: ' + flows.join('; ')));
    var table = el('table', undefined, 'regions'), head = el('tr'), shown = 0;
    var mine = fn.regions.filter(function (r) { return r.program === p; });
    var layers = mine.some(function (r) { return r.layers; }); // a column only where named
    ['region', 'phase', 'ops'].concat(layers ? ['layers'] : [], ['source', 'FLOPs', 'bytes', 'cost per backend (alone)', 'why here'])
      .forEach(function (t) { head.appendChild(el('th', t, 'l')); });
    table.appendChild(head);
    mine.forEach(function (r) {
      var row = el('tr');
      ['r' + r.id, r.phase, r.ops].concat(layers ? [r.layers] : [], [r.source, r.flops, r.bytes])
        .forEach(function (t) { cell(row, t || ''); });
      cell(row, Object.keys(r.costs || {}).map(function (b) {
        var c = r.costs[b];
        return b + ' ' + (c.legal ? c.text : 'illegal: ' + c.reason);
      }).join('; '));
      cell(row, r.explanation || '');
      table.appendChild(row);
      ++shown;
    });
    if (shown) popover.appendChild(table);
    else popover.appendChild(el('p', 'Region details are not embedded for this program (see the JSON report).', 'note'));
  }
  // Next to the anchor: right of it, else left, else below; always inside
  // the viewport (the popover scrolls when taller).
  function place(anchor) {
    var r = anchor.getBoundingClientRect(), vw = window.innerWidth, vh = window.innerHeight;
    var w = popover.offsetWidth, h = popover.offsetHeight, gap = 8, x, y;
    if (r.right + gap + w <= vw - gap) x = r.right + gap;
    else if (r.left - gap - w >= gap) x = r.left - gap - w;
    else x = Math.max(gap, Math.min(r.left, vw - w - gap));
    var beside = x >= r.right || x + w <= r.left;
    y = beside ? r.top : r.bottom + gap;
    if (!beside && y + h > vh - gap && r.top - gap - h >= gap) y = r.top - gap - h;
    y = Math.max(gap, Math.min(y, vh - h - gap));
    popover.style.left = Math.round(x) + 'px';
    popover.style.top = Math.round(y) + 'px';
  }
  function hide() {
    popover.hidden = true;
    document.querySelectorAll('.selected').forEach(function (e) { e.classList.remove('selected'); });
  }
  function show(f, p, anchor, set) {
    if (!fns(set)[f]) return;
    hide();
    fill(f, p, set);
    popover.hidden = false;
    document.querySelectorAll('[data-function="' + f + '"][data-program="' + p + '"]').forEach(function (e) {
      if ((e.getAttribute('data-compare') === 'b') !== (set === 'b')) return;
      if (e.classList.contains('prog') || e.classList.contains('bar') || e.tagName === 'TR') e.classList.add('selected');
    });
    current = anchor;
    place(anchor);
    popover.setAttribute('data-function', f);
    popover.setAttribute('data-program', p);
    popover.setAttribute('data-compare', set || 'a');
  }
  function clickable(e) {
    e.addEventListener('click', function (ev) {
      ev.stopPropagation();
      show(+e.getAttribute('data-function'), +e.getAttribute('data-program'), e, e.getAttribute('data-compare'));
    });
  }
  document.querySelectorAll('.prog, rect.bar, rect.xfer, tr[data-program]').forEach(clickable);
  document.querySelectorAll('.prog').forEach(function (e) {
    e.addEventListener('keydown', function (ev) { if (ev.key === 'Enter') e.click(); });
  });
  document.addEventListener('keydown', function (ev) { if (ev.key === 'Escape') hide(); });
  document.addEventListener('click', function (ev) { if (!popover.contains(ev.target)) hide(); });
  // The details follow what they belong to (kept inside the viewport).
  window.addEventListener('scroll', function () { if (!popover.hidden && current) place(current); }, { passive: true });

  // One line on hover, next to the pointer.
  document.querySelectorAll('.prog, rect.bar, rect.xfer').forEach(function (e) {
    e.addEventListener('mousemove', function (ev) {
      var f = +e.getAttribute('data-function'), p = +e.getAttribute('data-program');
      var pr = data.functions[f] && data.functions[f].programs[p];
      hover.textContent = e.classList.contains('xfer') ? 'boundary into ' + programTitle(f, p)
        : programTitle(f, p) + (pr && pr.ops ? ': ' + pr.ops : '') + (pr && pr.layers ? ' \u2014 ' + pr.layers : '');
      hover.hidden = false;
      hover.style.left = Math.min(ev.clientX + 14, window.innerWidth - hover.offsetWidth - 8) + 'px';
      hover.style.top = Math.min(ev.clientY + 14, window.innerHeight - hover.offsetHeight - 8) + 'px';
    });
    e.addEventListener('mouseleave', function () { hover.hidden = true; });
  });

  // Search: every word must occur in a program's ops, layers, source,
  // backend, phase or "#id"; the timeline dims what does not match.
  var search = document.getElementById('graph-search'), count = document.getElementById('search-count');
  function applySearch() {
    var words = (search.value || '').toLowerCase().split(/\s+/).filter(Boolean), hits = 0, all = 0;
    document.querySelectorAll('.prog').forEach(function (card) {
      var text = card.getAttribute('data-search') || '';
      var match = words.every(function (w) { return text.indexOf(w) >= 0; });
      card.classList.toggle('filtered', !match);
      var bar = document.getElementById('bar-' + card.getAttribute('data-function') + '-' + card.getAttribute('data-program'));
      if (bar) bar.classList.toggle('dim', words.length > 0 && !match);
      ++all; if (match) ++hits;
    });
    document.querySelectorAll('details.group').forEach(function (g) {
      if (words.length) g.open = !!g.querySelector('.prog:not(.filtered)');
    });
    count.textContent = words.length ? hits + ' of ' + all + ' programs match' : '';
    refreshViews();
    // The first match into its view when panned or zoomed away from it.
    if (words.length) views.forEach(function (v) { v.reveal(v.box.querySelector('.prog:not(.filtered)')); });
  }
  if (search) search.addEventListener('input', applySearch);

  // Regrouping by phase or backend, in program order.
  function regroup(key) {
    document.querySelectorAll('.graph[data-function]').forEach(function (box) {
      var graph = box.querySelector('.stage') || box;
      var cards = Array.prototype.slice.call(graph.querySelectorAll('.prog'));
      cards.sort(function (a, b) { return a.getAttribute('data-program') - b.getAttribute('data-program'); });
      while (graph.firstChild) graph.removeChild(graph.firstChild);
      var groups = {}, order = [];
      cards.forEach(function (c) {
        var k = c.getAttribute('data-' + key);
        if (!groups[k]) { groups[k] = []; order.push(k); }
        groups[k].push(c);
      });
      order.forEach(function (k) {
        var d = el('details', undefined, 'group'), s = el('summary'), box = el('div', undefined, 'cards');
        var ms = groups[k].reduce(function (t, c) { return t + +c.getAttribute('data-seconds'); }, 0) * 1e3;
        d.open = true;
        s.appendChild(el('b', k));
        s.appendChild(document.createTextNode(': ' + groups[k].length + ' programs, ' + ms.toFixed(3) + ' ms'));
        d.appendChild(s);
        groups[k].forEach(function (c) { box.appendChild(c); });
        d.appendChild(box);
        graph.appendChild(d);
      });
    });
    if (search) applySearch();
    refreshViews();
  }
  var groupBy = document.getElementById('group-by');
  if (groupBy) groupBy.addEventListener('change', function () { regroup(groupBy.value); });
  function openAll(open) { document.querySelectorAll('details.group').forEach(function (d) { d.open = open; }); }
  var expand = document.getElementById('expand-all'), collapse = document.getElementById('collapse-all');
  if (expand) expand.addEventListener('click', function () { openAll(true); });
  if (collapse) collapse.addEventListener('click', function () { openAll(false); });

  // Pan and zoom of the cards, as Netron and Perfetto do. The cards keep
  // their layout (a stage of fixed width) and are scaled by a transform
  // inside a sizer of the scaled size, so the viewport's own scrolling pans
  // them (wheel, scroll bars, arrow keys, scrollIntoView) and dragging
  // scrolls it; Ctrl+wheel, a pinch, +/- and the buttons zoom around the
  // pointer (or the middle); 0 fits the whole step, 1 is actual size.
  // Ends a drag on pointerup or pointercancel (`up`); the click that ends
  // a drag (state.dragged) opens nothing.
  function endsDrags(box, state, up) {
    box.addEventListener('pointerup', up);
    box.addEventListener('pointercancel', up);
    box.addEventListener('click', function (ev) {
      if (state.dragged) { ev.stopPropagation(); ev.preventDefault(); state.dragged = false; }
    }, true);
  }
  var views = [], ZMIN = 0.1, ZMAX = 4;
  function refreshViews() { views.forEach(function (v) { v.refresh(); }); }
  function panZoom(box) {
    var sizer = box.querySelector('.sizer'), stage = box.querySelector('.stage');
    var level = document.getElementById('zoom-level-' + box.getAttribute('data-function'));
    var v = { box: box, s: 1, w: 0 };
    // Nothing is measured before the first zoom (no layout forced while the
    // page loads): until then the cards flow in the view as CSS lays them.
    // Then the stage keeps the view's width and the view its height (at
    // most 72 % of the window's): zooming lays nothing out again.
    v.measure = function () {
      stage.style.width = '';
      v.w = box.clientWidth;
      stage.style.width = v.w + 'px';
    };
    v.refresh = function () {
      if (!v.w) return;
      var h = stage.offsetHeight;
      box.style.height = Math.max(120, Math.min(h + 2, Math.round(window.innerHeight * 0.72))) + 'px';
      sizer.style.width = Math.round(v.w * v.s) + 'px';
      sizer.style.height = Math.round(h * v.s) + 'px';
    };
    // Zoom to s keeping the point at (x, y) of the viewport where it is.
    v.zoom = function (s, x, y) {
      if (!v.w) v.measure();
      s = Math.max(ZMIN, Math.min(ZMAX, s));
      if (x === undefined) { x = box.clientWidth / 2; y = box.clientHeight / 2; }
      var px = (box.scrollLeft + x) / v.s, py = (box.scrollTop + y) / v.s;
      v.s = s;
      stage.style.transform = s === 1 ? '' : 'scale(' + s + ')';
      v.refresh();
      box.scrollLeft = px * s - x;
      box.scrollTop = py * s - y;
      box.setAttribute('data-zoom', s.toFixed(4));
      if (level) level.textContent = Math.round(s * 100) + '%';
      follow();
    };
    v.fit = function () { // and the whole view on the screen
      if (!v.w) v.measure();
      v.zoom(Math.min(1, box.clientWidth / v.w, box.clientHeight / stage.offsetHeight), 0, 0);
      box.scrollLeft = 0;
      box.scrollTop = 0;
      var r = box.getBoundingClientRect();
      if (r.top < 0 || r.bottom > window.innerHeight) box.scrollIntoView({ block: 'nearest' });
    };
    v.reveal = function (card) {
      if (!card) return;
      var b = box.getBoundingClientRect(), r = card.getBoundingClientRect();
      if (r.left < b.left || r.right > b.right) box.scrollLeft += r.left - b.left - 8;
      if (r.top < b.top || r.bottom > b.bottom) box.scrollTop += r.top - b.top - 8;
    };
    function follow() { if (!popover.hidden && current && box.contains(current)) place(current); }
    function at(ev) {
      var r = box.getBoundingClientRect();
      return [ev.clientX - r.left - box.clientLeft, ev.clientY - r.top - box.clientTop];
    }
    box.addEventListener('scroll', follow, { passive: true });
    box.addEventListener('wheel', function (ev) {
      if (!ev.ctrlKey && !ev.metaKey) return; // a plain wheel scrolls: pans
      ev.preventDefault(); // a pinch on a touchpad comes as Ctrl+wheel
      var d = ev.deltaY * (ev.deltaMode === 1 ? 16 : ev.deltaMode === 2 ? 400 : 1), p = at(ev);
      v.zoom(v.s * Math.exp(-Math.max(-200, Math.min(200, d)) * 0.002), p[0], p[1]);
    }, { passive: false });
    // Dragging pans; two touches pinch. A drag is not a click.
    var pts = {}, drag = null, pinch = null, st = { dragged: false };
    function spread() {
      var k = Object.keys(pts), a = pts[k[0]], b = pts[k[1]];
      return { d: Math.max(1, Math.hypot(a.x - b.x, a.y - b.y)), x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 };
    }
    box.addEventListener('pointerdown', function (ev) {
      if (ev.button !== 0) return;
      if (ev.target === box && (ev.offsetX >= box.clientWidth || ev.offsetY >= box.clientHeight)) return; // scroll bar
      if (ev.pointerType === 'mouse') pts = {};
      pts[ev.pointerId] = { x: ev.clientX, y: ev.clientY };
      st.dragged = false;
      if (Object.keys(pts).length === 2) { pinch = { g: spread(), s: v.s }; drag = null; st.dragged = true; }
      else drag = { x: ev.clientX, y: ev.clientY, l: box.scrollLeft, t: box.scrollTop };
      if (!ev.target.closest('.prog, summary')) box.focus({ preventScroll: true });
    });
    box.addEventListener('pointermove', function (ev) {
      if (!pts[ev.pointerId]) return;
      pts[ev.pointerId] = { x: ev.clientX, y: ev.clientY };
      if (pinch) {
        var g = spread(), r = box.getBoundingClientRect();
        v.zoom(pinch.s * g.d / pinch.g.d, g.x - r.left, g.y - r.top);
        return;
      }
      if (!drag) return;
      var dx = ev.clientX - drag.x, dy = ev.clientY - drag.y;
      if (!st.dragged && Math.abs(dx) + Math.abs(dy) < 5) return;
      if (!st.dragged) { st.dragged = true; box.setPointerCapture(ev.pointerId); box.classList.add('panning'); }
      box.scrollLeft = drag.l - dx;
      box.scrollTop = drag.t - dy;
    });
    function up(ev) {
      delete pts[ev.pointerId];
      if (Object.keys(pts).length < 2) pinch = null;
      if (!Object.keys(pts).length) { drag = null; box.classList.remove('panning'); }
    }
    endsDrags(box, st, up);
    box.addEventListener('keydown', function (ev) {
      if (ev.ctrlKey || ev.metaKey || ev.altKey) return;
      if (ev.key === '+' || ev.key === '=') v.zoom(v.s * 1.25);
      else if (ev.key === '-' || ev.key === '_') v.zoom(v.s / 1.25);
      else if (ev.key === '0') v.fit();
      else if (ev.key === '1') v.zoom(1);
      else return;
      ev.preventDefault();
    });
    box.addEventListener('toggle', v.refresh, true); // a group collapsed
    views[+box.getAttribute('data-function')] = v;
  }
  document.querySelectorAll('.graph[data-function]').forEach(panZoom);
  document.querySelectorAll('button[data-pz]').forEach(function (b) {
    b.addEventListener('click', function () {
      var v = views[+b.getAttribute('data-function')], how = b.getAttribute('data-pz');
      if (!v) return;
      if (how === 'fit') v.fit();
      else v.zoom(how === 'in' ? v.s * 1.25 : how === 'out' ? v.s / 1.25 : 1);
    });
  });
  window.addEventListener('resize', function () {
    views.forEach(function (v) { if (v.w) { v.measure(); v.zoom(v.s); } });
  });

  // The timeline's zoom: x from each element's times, the scroll kept on
  // the point under the pointer.
  function zoom(f, factor, atX) {
    var box = document.getElementById('timeline-' + f);
    if (!box) return;
    var svg = box.querySelector('svg'), base = +svg.getAttribute('data-scale');
    var z = factor === 0 ? 1 : Math.max(1, Math.min(400, (+svg.getAttribute('data-zoom') || 1) * factor));
    var old = +svg.getAttribute('data-zoom') || 1, at = atX === undefined ? box.clientWidth / 2 : atX;
    var t = (box.scrollLeft + at) / (base * old), s = base * z;
    svg.setAttribute('data-zoom', z);
    svg.setAttribute('width', +svg.getAttribute('data-width') * z);
    svg.querySelectorAll('[data-t0]').forEach(function (e) {
      var t0 = +e.getAttribute('data-t0'), t1 = e.getAttribute('data-t1');
      if (e.tagName === 'rect') { e.setAttribute('x', t0 * s); e.setAttribute('width', Math.max((+t1 - t0) * s, 1)); }
      else if (e.tagName === 'line') { e.setAttribute('x1', t0 * s); e.setAttribute('x2', +t1 * s); }
      else e.setAttribute('x', t0 * s);
    });
    box.scrollLeft = t * s - at;
  }
  document.querySelectorAll('button[data-zoom]').forEach(function (b) {
    b.addEventListener('click', function () {
      var how = b.getAttribute('data-zoom');
      zoom(+b.getAttribute('data-function'), how === 'in' ? 2 : how === 'out' ? 0.5 : 0);
    });
  });
  // Moving along the timeline as in Perfetto: dragging pans (and is no
  // click on the bar it started on), W/S zoom around the middle, A/D pan by
  // a quarter of the view, 0 fits; Ctrl+wheel zooms around the pointer.
  document.querySelectorAll('.timeline').forEach(function (box) {
    var f = +box.id.split('-')[1], drag = null, st = { dragged: false };
    box.addEventListener('wheel', function (ev) {
      if (!ev.ctrlKey && !ev.metaKey) return;
      ev.preventDefault();
      zoom(f, ev.deltaY < 0 ? 1.25 : 0.8, ev.clientX - box.getBoundingClientRect().left);
    }, { passive: false });
    box.addEventListener('pointerdown', function (ev) {
      if (ev.button !== 0 || ev.offsetY >= box.clientHeight) return; // scroll bar
      drag = { x: ev.clientX, l: box.scrollLeft, id: ev.pointerId };
      st.dragged = false;
      box.focus({ preventScroll: true });
    });
    box.addEventListener('pointermove', function (ev) {
      if (!drag || ev.pointerId !== drag.id) return;
      var dx = ev.clientX - drag.x;
      if (!st.dragged && Math.abs(dx) < 5) return;
      if (!st.dragged) { st.dragged = true; box.setPointerCapture(ev.pointerId); box.classList.add('panning'); }
      box.scrollLeft = drag.l - dx;
    });
    endsDrags(box, st, function () { drag = null; box.classList.remove('panning'); });
    box.addEventListener('keydown', function (ev) {
      if (ev.ctrlKey || ev.metaKey || ev.altKey) return;
      var k = ev.key.toLowerCase();
      if (k === 'w' || k === '+' || k === '=') zoom(f, 1.25);
      else if (k === 's' || k === '-' || k === '_') zoom(f, 0.8);
      else if (k === 'a') box.scrollLeft -= box.clientWidth / 4;
      else if (k === 'd') box.scrollLeft += box.clientWidth / 4;
      else if (k === '0') zoom(f, 0);
      else return;
      ev.preventDefault();
    });
  });

  // Smoothing as TensorBoard's: a debiased exponential moving average of
  // the raw series (drawn faint), on the chart's pixel coordinates, which
  // are an affine map of the values.
  var slider = document.getElementById('smoothing'), sliderValue = document.getElementById('smoothing-value');
  function smooth() {
    var a = slider ? +slider.value : 0;
    if (sliderValue) sliderValue.textContent = a.toFixed(2);
    document.querySelectorAll('svg.chart polyline.raw').forEach(function (raw) {
      var line = raw.nextElementSibling; // its smoothed copy
      if (!line || !line.classList.contains('smooth') || !raw.getAttribute('points').trim()) return;
      var last = 0, n = 0, out = [];
      raw.getAttribute('points').trim().split(/\s+/).forEach(function (pt) {
        var xy = pt.split(',');
        last = last * a + (1 - a) * +xy[1];
        ++n;
        out.push(xy[0] + ',' + (last / (1 - Math.pow(a, n))).toFixed(1));
      });
      line.setAttribute('points', out.join(' '));
      raw.classList.toggle('faint', a > 0);
    });
  }
  if (slider) { slider.addEventListener('input', smooth); smooth(); }

  // #show-<function>-<program> opens that program's details on load.
  var m = /^#show-(\d+)-(\d+)$/.exec(window.location.hash);
  if (m) {
    var anchor = document.getElementById('prog-' + m[1] + '-' + m[2]) ||
      document.querySelector('tr[data-function="' + m[1] + '"][data-program="' + m[2] + '"]');
    if (anchor) {
      anchor.scrollIntoView({ block: 'center' });
      show(+m[1], +m[2], anchor);
    }
  }
  document.body.setAttribute('data-report-ready', '1');
})();
