// Draws each finding's swimlane timeline from the data embedded in the page,
// and wires the copy buttons. No network access: everything is in the page.
(function () {
  'use strict';

  var NS = 'http://www.w3.org/2000/svg'; // the SVG namespace name, not a URL that is fetched
  var LABEL_W = 250, LANE_H = 32, AXIS_H = 30, PAD_R = 14, PAD_T = 6;
  var MOMENT_ROW = 13;  // a row of moment labels above the lanes; two rows
  var SALIENT = { rollback: true, failover: true, error: true, traffic: true }; // drawn on top: the story's turns
  var GAP_PX = 5;       // markers closer than this join one group
  var DENSE = 4;        // a group of at least this many events is drawn as a band with its count
  var MIN_SPAN = 50;    // µs: the deepest zoom
  var MAX_DETAIL = 200; // rows listed for a band

  var errors = document.getElementById('errors');
  function fail(msg) {
    if (!errors) throw new Error(msg);
    errors.hidden = false;
    errors.textContent += msg + '\n';
    document.body.setAttribute('data-rendered', 'error');
  }
  if (errors) window.addEventListener('error', function (e) { fail('script error: ' + e.message); });

  function el(name, attrs, parent) {
    var e = document.createElementNS(NS, name);
    for (var k in attrs) e.setAttribute(k, attrs[k]);
    if (parent) parent.appendChild(e);
    return e;
  }
  function h(name, attrs, text, parent) {
    var e = document.createElement(name);
    for (var k in attrs) e.setAttribute(k, attrs[k]);
    if (text != null) e.textContent = text;
    if (parent) parent.appendChild(e);
    return e;
  }

  function pad(n, w) { n = String(n); while (n.length < w) n = '0' + n; return n; }
  // fmtTime writes an absolute time in µs since the epoch as UTC, with
  // digits fractional digits (0, 3 or 6).
  function fmtTime(us, digits, withDate) {
    var s = Math.floor(us / 1e6), frac = us - s * 1e6;
    var iso = new Date(s * 1000).toISOString(); // 2022-07-22T00:39:12.000Z
    var out = (withDate ? iso.slice(0, 10) + ' ' : '') + iso.slice(11, 19);
    if (digits > 0) out += '.' + pad(Math.round(frac), 6).slice(0, digits);
    return out;
  }
  function fmtSpan(us) {
    if (us < 1e3) return Math.round(us) + 'µs';
    if (us < 1e6) return (us / 1e3).toFixed(us < 1e4 ? 2 : 1) + 'ms';
    if (us < 60e6) return (us / 1e6).toFixed(us < 1e7 ? 3 : 2) + 's';
    var m = Math.floor(us / 60e6), s = Math.round((us - m * 60e6) / 1e6);
    return m + 'm' + (s ? s + 's' : '');
  }
  var STEPS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1e3, 2e3, 5e3, 1e4, 2e4, 5e4, 1e5, 2e5, 5e5,
    1e6, 2e6, 5e6, 1e7, 15e6, 3e7, 6e7, 12e7, 3e8, 6e8, 9e8, 18e8, 36e8, 72e8, 144e8, 864e8];

  function Chart(root, d, index) {
    this.root = root; this.d = d; this.index = index;
    this.full = Math.max(d.until - d.since, MIN_SPAN);
    this.from = 0; this.to = this.full;
    this.sel = null;
    // Events and bands per lane, in time order.
    var lanes = d.lanes.map(function () { return []; });
    d.events.forEach(function (e, i) {
      lanes[e[1]].push({ from: e[0], to: e[0], count: 1, ev: i });
    });
    d.bands.forEach(function (b) {
      lanes[b[0]].push({ from: b[1], to: b[2], count: b[3], band: b });
    });
    lanes.forEach(function (l) { l.sort(function (a, b) { return a.from - b.from; }); });
    this.laneItems = lanes;
    this.build();
    this.fitFinding();
  }

  Chart.prototype.build = function () {
    var self = this, d = this.d;
    var bar = h('div', { 'class': 'toolbar' }, null, this.root);
    function button(label, title, fn) {
      var b = h('button', { type: 'button', title: title }, label, bar);
      b.addEventListener('click', fn);
    }
    button('−', 'Zoom out', function () { self.zoom(2, 0.5); });
    button('+', 'Zoom in', function () { self.zoom(0.5, 0.5); });
    button('Finding', 'Show the finding with a little context', function () { self.fitFinding(); });
    button('All', 'Show the whole window', function () { self.setView(0, self.full); });
    this.info = h('span', { 'class': 'info' }, '', bar);
    var legend = h('div', { 'class': 'legend' }, null, this.root);
    var cats = {};
    d.kinds.forEach(function (k) { cats[k.cat] = true; });
    ['evidence', 'process', 'warmup', 'stream', 'rollback', 'error', 'traffic', 'failover', 'redirect', 'step', 'topo', 'request', 'other'].forEach(function (c) {
      if (cats[c] || c === 'evidence' && d.evidence > 0) h('span', { 'class': 'c-' + c }, c === 'evidence' ? 'evidence line (numbered)' : c, legend);
    });
    this.svg = el('svg', { 'class': 'lanes', 'data-finding': d.finding, 'data-lanes': d.lanes.length, role: 'img',
      'aria-label': 'Timeline of finding ' + d.finding }, this.root);
    this.detail = h('div', { 'class': 'detail' }, null, this.root);
    h('p', { 'class': 'hint' }, 'Hover a marker for its line, click it (or a band) to list the lines. Zoom with the wheel or the buttons, drag to pan.', this.detail);

    var svg = this.svg, drag = null;
    // viewX turns a mouse position into the SVG's coordinates, which the
    // page may have scaled.
    function viewX(e) {
      var r = svg.getBoundingClientRect();
      return (e.clientX - r.left) * (self.width / (r.width || self.width));
    }
    svg.addEventListener('wheel', function (e) {
      var x = viewX(e);
      if (x < LABEL_W) return;
      e.preventDefault();
      self.zoom(e.deltaY < 0 ? 0.8 : 1.25, (x - LABEL_W) / self.plotW);
    }, { passive: false });
    svg.addEventListener('mousedown', function (e) {
      if (e.button !== 0) return;
      self.suppressClick = false;
      drag = { x: viewX(e), from: self.from, to: self.to, moved: false };
    });
    window.addEventListener('mousemove', function (e) {
      if (!drag) return;
      var dx = viewX(e) - drag.x;
      if (Math.abs(dx) > 3) { drag.moved = true; svg.classList.add('dragging'); }
      if (!drag.moved) return;
      var dt = -dx / self.plotW * (drag.to - drag.from);
      self.setView(drag.from + dt, drag.to + dt);
    });
    window.addEventListener('mouseup', function () {
      if (drag && drag.moved) self.suppressClick = true;
      drag = null;
      svg.classList.remove('dragging');
    });
    svg.addEventListener('click', function (e) {
      if (self.suppressClick) { self.suppressClick = false; return; }
      var t = e.target.closest('[data-g]');
      if (t) self.showGroup(self.groups[+t.getAttribute('data-g')]);
    });
    svg.addEventListener('dblclick', function (e) {
      var x = viewX(e);
      if (x >= LABEL_W) self.zoom(0.5, (x - LABEL_W) / self.plotW);
    });
  };

  // fitFinding shows the finding: its window, every evidence line and
  // every moment its reasoning rests on, with a margin on each side, so
  // that the story opens whole (a view fitted to the densest stretch left
  // the failover, or a later topology snapshot, pinned at an edge).
  Chart.prototype.fitFinding = function () {
    var d = this.d;
    var lo = Math.min(d.start, d.end), hi = Math.max(d.start, d.end);
    d.events.forEach(function (e) { if (e[6] > 0) { lo = Math.min(lo, e[0]); hi = Math.max(hi, e[0]); } });
    (d.moments || []).forEach(function (mo) { lo = Math.min(lo, mo.t); hi = Math.max(hi, mo.t); });
    var m = Math.max((hi - lo) * 0.05, MIN_SPAN * 4);
    this.setView(lo - m, hi + m);
  };

  Chart.prototype.zoom = function (factor, at) {
    var span = this.to - this.from, c = this.from + span * at;
    var ns = Math.min(Math.max(span * factor, MIN_SPAN), this.full);
    this.setView(c - (c - this.from) * ns / span, c + (this.to - c) * ns / span);
  };

  Chart.prototype.setView = function (from, to) {
    var span = Math.min(Math.max(to - from, MIN_SPAN), this.full);
    if (from < 0) from = 0;
    if (from + span > this.full) from = this.full - span;
    this.from = from; this.to = from + span;
    var self = this;
    if (!this.pending) {
      this.pending = true;
      (window.requestAnimationFrame || setTimeout)(function () { self.pending = false; self.render(); });
    }
  };

  Chart.prototype.x = function (t) { return LABEL_W + (t - this.from) / (this.to - this.from) * this.plotW; };

  Chart.prototype.render = function () {
    var d = this.d, self = this, svg = this.svg;
    var width = Math.max(640, this.root.clientWidth - 14);
    this.width = width;
    this.plotW = width - LABEL_W - PAD_R;
    var moments = d.moments || [];
    var padT = PAD_T + (moments.length ? 2 * MOMENT_ROW : 0);
    var height = padT + d.lanes.length * LANE_H + AXIS_H;
    while (svg.firstChild) svg.removeChild(svg.firstChild);
    svg.setAttribute('viewBox', '0 0 ' + width + ' ' + height);
    svg.setAttribute('width', width);
    svg.setAttribute('height', height);
    var clipId = 'clip-' + this.index;
    var clip = el('clipPath', { id: clipId }, el('defs', {}, svg));
    el('rect', { x: LABEL_W, y: 0, width: this.plotW, height: height }, clip);

    var span = this.to - this.from, step = STEPS[STEPS.length - 1];
    for (var i = 0; i < STEPS.length; i++) if (span / STEPS[i] <= this.plotW / 110) { step = STEPS[i]; break; }
    var digits = step < 1e3 ? 6 : step < 1e6 ? 3 : 0;
    var laneTop = padT, lanesH = d.lanes.length * LANE_H;

    // Lanes: background and label.
    var laneGroups = d.lanes.map(function (l, i) {
      var g = el('g', { 'class': 'lane' + (i % 2 ? ' odd' : '') + (d.node && l.node === d.node ? ' subject' : ''),
        'data-lane': i, 'data-node': l.node, 'data-component': l.component }, svg);
      el('rect', { 'class': 'lane-bg', x: 0, y: laneTop + i * LANE_H, width: width, height: LANE_H }, g);
      var label = el('text', { 'class': 'label', 'data-prio': 1, x: 6, y: laneTop + i * LANE_H + LANE_H / 2 + 4 }, g);
      var nodeText = l.node || '';
      if (nodeText.length > 26) nodeText = '…' + nodeText.slice(-25);
      if (nodeText) el('tspan', { 'class': 'node' }, label).textContent = nodeText + '  ';
      el('tspan', { 'class': 'comp' }, label).textContent = l.component;
      el('title', {}, label).textContent = (l.node ? l.node + ' · ' : '') + l.component + ': ' + l.events + ' events in the window';
      return g;
    });

    // A rule between nodes.
    d.lanes.forEach(function (l, i) {
      if (i > 0 && l.node !== d.lanes[i - 1].node) {
        el('line', { 'class': 'node-sep', x1: 0, x2: width, y1: laneTop + i * LANE_H, y2: laneTop + i * LANE_H }, svg);
      }
    });

    // Grid and axis.
    var axis = el('g', { 'class': 'axis' }, svg);
    var first = Math.ceil((d.since + this.from) / step) * step - d.since;
    for (var t = first; t <= this.to; t += step) {
      var x = this.x(t);
      el('line', { 'class': 'grid', x1: x, x2: x, y1: laneTop, y2: laneTop + lanesH }, axis);
      var tx = el('text', { 'class': 'tick', x: x, y: laneTop + lanesH + 14, 'text-anchor': 'middle' }, axis);
      tx.textContent = fmtTime(d.since + t, digits, false);
    }
    var caption = el('text', { 'class': 'tick', x: LABEL_W, y: laneTop + lanesH + 27 }, axis);
    caption.textContent = fmtTime(d.since + this.from, 6, true) + ' UTC, ' + fmtSpan(span) + ' shown';

    // The finding's window.
    var plot = el('g', { 'clip-path': 'url(#' + clipId + ')' }, svg);
    var wx0 = this.x(Math.min(d.start, d.end)), wx1 = this.x(Math.max(d.start, d.end));
    var win = el('rect', { 'class': 'window', x: wx0, y: laneTop, width: Math.max(wx1 - wx0, 1), height: lanesH }, plot);
    el('title', {}, win).textContent = 'The finding: ' + fmtTime(d.since + d.start, 6, false) + ' to ' + fmtTime(d.since + d.end, 6, false);

    // Markers, grouped where they crowd.
    this.groups = [];
    var marks = 0, bands = 0, evidence = [], salient = [];
    // Each render draws anew: what an earlier zoom drew is gone.
    this.laneItems.forEach(function (items) { items.forEach(function (it) { it.drawn = false; }); });
    this.laneItems.forEach(function (items, li) {
      var g = el('g', { 'clip-path': 'url(#' + clipId + ')', 'class': 'marks' }, laneGroups[li]);
      var cy = laneTop + li * LANE_H + LANE_H / 2;
      var groups = [], cur = null;
      var lo = self.from - span * 0.01, hi = self.to + span * 0.01;
      for (var i = lowerBound(items, lo); i < items.length && items[i].from <= hi; i++) {
        var it = items[i], x0 = self.x(it.from), x1 = self.x(it.to);
        if (it.to < lo) continue;
        if (cur && x0 - cur.x1 <= GAP_PX) {
          cur.x1 = Math.max(cur.x1, x1); cur.count += it.count; cur.items.push(it);
        } else {
          cur = { x0: x0, x1: x1, count: it.count, items: [it], lane: li };
          groups.push(cur);
        }
      }
      groups.forEach(function (gr, gi) {
        var dense = gr.count >= DENSE || gr.items.some(function (it) { return it.band; });
        if (dense) {
          self.drawBand(g, gr, cy, gi + 1 < groups.length ? groups[gi + 1].x0 : Infinity);
          bands++;
          // The first rollback, failover, error or traffic change inside a
          // band is drawn on top of it: "rollback before traffic" must show.
          var shown = {};
          gr.items.forEach(function (it) {
            if (it.ev == null) return;
            var cat = d.kinds[d.events[it.ev][2]].cat;
            if (SALIENT[cat] && !shown[cat]) { shown[cat] = true; salient.push({ it: it, cy: cy, lane: li }); }
          });
        } else {
          // Routine markers first, the story's turns over them.
          gr.items.forEach(function (it) {
            if (SALIENT[d.kinds[d.events[it.ev][2]].cat]) { salient.push({ it: it, cy: cy, lane: li }); return; }
            self.drawMark(g, it, cy, li);
            marks++;
          });
        }
        gr.items.forEach(function (it) {
          if (it.ev != null && d.events[it.ev][6] > 0) evidence.push({ it: it, x: self.x(it.from), cy: cy, lane: li });
        });
      });
    });
    var turns = el('g', { 'clip-path': 'url(#' + clipId + ')', 'class': 'salient-marks' }, svg);
    salient.forEach(function (s) {
      if (s.it.ev != null && d.events[s.it.ev][6] > 0) return; // evidence is drawn on top below
      self.drawMark(turns, s.it, s.cy, s.lane);
      marks++;
    });
    // Evidence on top, numbered: a line inside a band is drawn again on its
    // own, and numbers that would overlap share a badge.
    var top = el('g', { 'clip-path': 'url(#' + clipId + ')', 'class': 'evidence-marks' }, svg);
    evidence.sort(function (a, b) { return a.lane - b.lane || a.x - b.x; });
    var badges = [], badge = null;
    evidence.forEach(function (e) {
      if (!e.it.drawn) { self.drawMark(top, e.it, e.cy, e.lane); marks++; }
      var n = d.events[e.it.ev][6];
      // Join the badge before when this one would touch it: its label is
      // about 6 px a character, so two ranges side by side need room.
      if (badge && badge.lane === e.lane && e.x - badgeWidth(n) / 2 < (badge.x0 + badge.x1) / 2 + badgeWidth(badgeLabel(badge.nums)) / 2 + 4) {
        badge.nums.push(n);
        badge.x1 = e.x;
      } else {
        badge = { lane: e.lane, x0: e.x, x1: e.x, cy: e.cy, nums: [n] };
        badges.push(badge);
      }
    });
    badges.forEach(function (b) { self.drawBadge(top, b); });

    // Evidence outside the view is pinned to the edge it lies beyond, with
    // its numbers and an arrow: every evidence line stays on the chart.
    var drawnEv = {};
    evidence.forEach(function (e) { drawnEv[e.it.ev] = true; });
    var pins = {};
    d.events.forEach(function (e, i) {
      if (!(e[6] > 0) || drawnEv[i]) return;
      var side = e[0] < self.from ? 'l' : e[0] > self.to ? 'r' : null;
      if (!side) return;
      var key = side + e[1];
      (pins[key] = pins[key] || { side: side, lane: e[1], nums: [], evs: [] }).nums.push(e[6]);
      pins[key].evs.push(i);
    });
    var pinLayer = el('g', { 'class': 'evidence-pins' }, svg), pinned = 0;
    Object.keys(pins).forEach(function (k) {
      var p = pins[k], cy = laneTop + p.lane * LANE_H + LANE_H / 2;
      var x = p.side === 'l' ? LABEL_W + 5 : width - PAD_R - 5, dir = p.side === 'l' ? -1 : 1;
      p.evs.forEach(function (i) {
        var shape = el('path', { 'class': 'mk ev pin c-evidence', d: 'M' + (x + dir * 5) + ' ' + cy + 'l' + (-dir * 8) + ' -5v10z', 'data-evidence': d.events[i][6] }, pinLayer);
        el('title', {}, shape).textContent = self.describe(d.events[i]) + '\n(outside the view: Finding, or its "show on timeline" button, shows it)';
        marks++; pinned++;
      });
      var label = (p.side === 'l' ? '← ' : '') + badgeLabel(p.nums) + (p.side === 'r' ? ' →' : '');
      var w = label.length * 6 + 6, bx = p.side === 'l' ? x + 4 : x - 4 - w;
      var gg = el('g', { 'class': 'badge-ev label', 'data-prio': 2 }, pinLayer); // what is off the view must say so
      el('rect', { x: bx, y: cy - 16, width: w, height: 10, rx: 3 }, gg);
      el('text', { x: bx + w / 2, y: cy - 8, 'text-anchor': 'middle' }, gg).textContent = label;
    });

    // The moments the reasoning rests on: a rule across every lane, labelled
    // above them; a label that would touch the one before takes the second row.
    // The rules lie under the story's markers and the evidence numbers.
    var mg = svg.insertBefore(el('g', { 'class': 'moments' }), turns);
    var rowEnd = [-Infinity, -Infinity];
    moments.forEach(function (mo) {
      var x = self.x(mo.t);
      if (x < LABEL_W - 1 || x > width - PAD_R + 1) return;
      el('line', { 'class': 'moment' + (mo.never ? ' never' : ''), x1: x, x2: x, y1: PAD_T, y2: laneTop + lanesH }, mg);
      var text = mo.never ? mo.label + ' →' : mo.label;
      var w = text.length * 6.2;
      var anchorEnd = x + w > width - PAD_R;
      var x0 = anchorEnd ? x - w - 3 : x + 3;
      var row = x0 > rowEnd[0] + 4 ? 0 : x0 > rowEnd[1] + 4 ? 1 : -1;
      if (row < 0) return; // no room: the rule stays, its title says what it is
      rowEnd[row] = x0 + w;
      var t = el('text', { 'class': 'moment-label label' + (mo.never ? ' never' : ''), x: anchorEnd ? x - 3 : x + 3,
        y: PAD_T + row * MOMENT_ROW + 9, 'text-anchor': anchorEnd ? 'end' : 'start', 'data-prio': 2 }, mg);
      t.textContent = text;
      el('title', {}, t).textContent = mo.never ? mo.label + ' within the finding\'s window' : mo.label + ' at ' + fmtTime(d.since + mo.t, 6, false);
    });
    svg.setAttribute('data-moments', mg.querySelectorAll('line.moment').length);
    this.declutter();

    svg.setAttribute('data-marks', marks);
    svg.setAttribute('data-bands', bands);
    svg.setAttribute('data-pinned', pinned);
    this.info.textContent = d.total + (d.total === 1 ? ' event in ' : ' events in ') + d.lanes.length + (d.lanes.length === 1 ? ' lane' : ' lanes') +
      (d.bands.length ? ' (dense stretches counted, not drawn one by one)' : '') + ' · ' + fmtSpan(span) + ' shown' +
      (pinned ? ' · ' + pinned + (pinned === 1 ? ' evidence line lies' : ' evidence lines lie') + ' outside the view (Finding shows them all)' : '');
  };

  // declutter hides labels that would cover a label of more weight (lane
  // names, then moments, then evidence numbers, then band counts) or an
  // evidence marker, and records how many labels are shown and how many
  // pairs still overlap, for the browser test.
  Chart.prototype.declutter = function () {
    var svg = this.svg, kept = [];
    function box(e) { var r = e.getBBox(); return { x0: r.x, y0: r.y, x1: r.x + r.width, y1: r.y + r.height }; }
    function hits(a, b) { return a.x0 < b.x1 - 0.5 && b.x0 < a.x1 - 0.5 && a.y0 < b.y1 - 0.5 && b.y0 < a.y1 - 0.5; }
    var labels = Array.prototype.slice.call(svg.querySelectorAll('.label'));
    labels.sort(function (a, b) { return (+a.getAttribute('data-prio')) - (+b.getAttribute('data-prio')); });
    var obstacles = Array.prototype.slice.call(svg.querySelectorAll('.mk.ev')).map(box);
    labels.forEach(function (l) {
      var b = box(l), prio = +l.getAttribute('data-prio');
      var blocked = kept.some(function (k) { return hits(k, b); }) || (prio >= 4 && obstacles.some(function (o) { return hits(o, b); }));
      if (blocked) { l.parentNode.removeChild(l); return; }
      kept.push(b);
    });
    var overlaps = 0;
    for (var i = 0; i < kept.length; i++) for (var j = i + 1; j < kept.length; j++) if (hits(kept[i], kept[j])) overlaps++;
    svg.setAttribute('data-labels', kept.length);
    svg.setAttribute('data-label-overlaps', overlaps);
  };

  function badgeLabel(nums) {
    nums = nums.slice().sort(function (x, y) { return x - y; });
    var label = nums.length === 1 ? String(nums[0]) :
      nums[nums.length - 1] - nums[0] === nums.length - 1 ? nums[0] + '–' + nums[nums.length - 1] : nums.join(',');
    if (label.length > 9) label = nums[0] + '…' + nums[nums.length - 1]; // the badge's title lists them all
    return label;
  }
  function badgeWidth(label) { return String(label).length * 6 + 6; }

  function lowerBound(items, t) {
    // Items are sorted by their start; bands can start before t and end after it,
    // so back up over anything that might still reach t.
    var lo = 0, hi = items.length;
    while (lo < hi) { var m = (lo + hi) >> 1; if (items[m].from < t) lo = m + 1; else hi = m; }
    while (lo > 0 && items[lo - 1].to >= t) lo--;
    return lo;
  }

  Chart.prototype.describe = function (e) {
    var d = this.d, k = d.kinds[e[2]], l = d.lanes[e[1]];
    var s = fmtTime(d.since + e[0], 6, false) + '  ' + k.label + ' (' + k.kind + ')\n' +
      (l.node ? l.node + ' · ' : '') + l.component + '\n' + d.sources[e[3]] + ':' + e[4];
    if (e[6] > 0) s += '\nevidence ' + e[6] + (d.notes[e[6] - 1] ? ': ' + d.notes[e[6] - 1] : '');
    return s + '\n' + e[5];
  };

  Chart.prototype.drawMark = function (g, it, cy, li) {
    var e = this.d.events[it.ev], k = this.d.kinds[e[2]], x = this.x(it.from);
    var cls = 'c-' + k.cat + (e[6] > 0 ? ' mk ev' : ' mk') + (this.sel === it.ev ? ' sel' : '');
    var gi = this.groups.length;
    this.groups.push({ items: [it], lane: li });
    var shape, r = e[6] > 0 ? 6 : 4.5;
    switch (k.cat) {
      case 'other':
      case 'request':
        shape = el('line', { 'class': 'tickmark c-' + k.cat + (this.sel === it.ev ? ' sel' : ''), x1: x, x2: x, y1: cy - 6, y2: cy + 6, 'data-g': gi }, g);
        if (e[6] > 0) shape = el('circle', { 'class': cls, cx: x, cy: cy, r: r, 'data-g': gi }, g);
        break;
      case 'error':
        shape = el('path', { 'class': cls, d: 'M' + x + ' ' + (cy - r - 1) + 'l' + (r + 1) + ' ' + (r + 1) + 'l' + -(r + 1) + ' ' + (r + 1) + 'l' + -(r + 1) + ' ' + -(r + 1) + 'z', 'data-g': gi }, g);
        break;
      case 'process':
        shape = el('rect', { 'class': cls, x: x - r, y: cy - r, width: 2 * r, height: 2 * r, 'data-g': gi }, g);
        break;
      case 'rollback':
        shape = el('path', { 'class': cls, d: 'M' + (x - r - 1) + ' ' + (cy - r) + 'h' + (2 * r + 2) + 'l' + -(r + 1) + ' ' + (2 * r) + 'z', 'data-g': gi }, g);
        break;
      case 'failover':
        shape = el('path', { 'class': cls, d: 'M' + (x - r - 1) + ' ' + (cy + r) + 'h' + (2 * r + 2) + 'l' + -(r + 1) + ' ' + -(2 * r) + 'z', 'data-g': gi }, g);
        break;
      default:
        shape = el('circle', { 'class': cls, cx: x, cy: cy, r: r, 'data-g': gi }, g);
    }
    it.drawn = true;
    if (e[6] > 0) shape.setAttribute('data-evidence', e[6]);
    el('title', {}, shape).textContent = this.describe(e);
  };

  // drawBand draws a group as a band with its count: inside the band when
  // it fits, else after it when that leaves room before next (the x of the
  // next group), else only in the tooltip.
  Chart.prototype.drawBand = function (g, gr, cy, next) {
    var d = this.d, counts = {}, first = null, last = null;
    gr.items.forEach(function (it) {
      it.drawn = false;
      var k = it.ev != null ? d.events[it.ev][2] : it.band[4];
      counts[k] = (counts[k] || 0) + it.count;
      if (first === null || it.from < first) first = it.from;
      if (last === null || it.to > last) last = it.to;
    });
    var top = null;
    for (var k in counts) if (top === null || counts[k] > counts[top]) top = k;
    var x0 = gr.x0 - 3, w = Math.max(gr.x1 - gr.x0 + 6, 8);
    var gi = this.groups.length;
    this.groups.push(gr);
    var rect = el('rect', { 'class': 'band c-' + d.kinds[top].cat, x: x0, y: cy - 8, width: w, height: 16, rx: 3, 'data-g': gi, 'data-count': gr.count }, g);
    var lines = [gr.count + ' events from ' + fmtTime(d.since + first, 6, false) + ' to ' + fmtTime(d.since + last, 6, false) + ' (' + fmtSpan(last - first) + ')'];
    Object.keys(counts).sort(function (a, b) { return counts[b] - counts[a]; }).forEach(function (k) {
      lines.push(counts[k] + ' × ' + d.kinds[k].label + ' (' + d.kinds[k].kind + ')');
    });
    lines.push('Click to list them; zoom in to see them one by one.');
    el('title', {}, rect).textContent = lines.join('\n');
    var label = String(gr.count);
    if (label.length * 6.5 + 4 <= w) {
      el('text', { 'class': 'count label', x: x0 + w / 2, y: cy + 4, 'text-anchor': 'middle', 'data-prio': 4 }, g).textContent = label;
    } else if (x0 + w + 3 + (label.length + 1) * 6.5 + 4 < next - 3) {
      el('text', { 'class': 'count label', x: x0 + w + 3, y: cy + 4, 'data-prio': 4 }, g).textContent = '×' + label;
    }
  };

  Chart.prototype.drawBadge = function (g, b) {
    var label = badgeLabel(b.nums);
    var w = badgeWidth(label), x = (b.x0 + b.x1) / 2;
    var gg = el('g', { 'class': 'badge-ev label', 'data-prio': 3 }, g);
    el('rect', { x: x - w / 2, y: b.cy - 16, width: w, height: 10, rx: 3 }, gg);
    var t = el('text', { x: x, y: b.cy - 8, 'text-anchor': 'middle' }, gg);
    t.textContent = label;
    el('title', {}, gg).textContent = 'Evidence ' + b.nums.slice().sort(function (x, y) { return x - y; }).join(', ');
  };

  Chart.prototype.showGroup = function (gr) {
    var d = this.d, self = this, box = this.detail;
    while (box.firstChild) box.removeChild(box.firstChild);
    var events = [], aggregated = 0;
    gr.items.forEach(function (it) {
      if (it.ev != null) events.push(it.ev); else aggregated += it.count;
    });
    var head = events.length + (events.length === 1 ? ' line' : ' lines');
    if (aggregated) head += ', and ' + aggregated + ' events counted without their lines (zoom in, or use forensics timeline query)';
    h('p', { 'class': 'hint' }, head, box);
    var table = h('table', {}, null, box);
    var tr = h('tr', {}, null, h('thead', {}, null, table));
    ['Time (UTC)', 'Lane', 'Event', 'Source', 'Line as logged'].forEach(function (c) { h('th', {}, c, tr); });
    var body = h('tbody', {}, null, table);
    events.slice(0, MAX_DETAIL).forEach(function (i) {
      var e = d.events[i], k = d.kinds[e[2]], l = d.lanes[e[1]];
      var row = h('tr', e[6] > 0 ? { 'class': 'ev' } : {}, null, body);
      h('td', {}, fmtTime(d.since + e[0], 6, false), row);
      h('td', {}, (l.node ? l.node + ' · ' : '') + l.component, row);
      h('td', { title: k.kind }, (e[6] > 0 ? 'evidence ' + e[6] + ': ' + (d.notes[e[6] - 1] || k.label) : k.label), row);
      h('code', {}, d.sources[e[3]] + ':' + e[4], h('td', {}, null, row));
      h('pre', {}, e[5], h('td', {}, null, row));
    });
    if (events.length > MAX_DETAIL) h('p', { 'class': 'hint' }, (events.length - MAX_DETAIL) + ' more; zoom in to see them.', box);
    self.sel = events.length === 1 ? events[0] : null;
    self.render();
  };

  Chart.prototype.focusEvidence = function (n) {
    var d = this.d;
    for (var i = 0; i < d.events.length; i++) {
      if (d.events[i][6] === n) {
        var t = d.events[i][0], span = Math.max(Math.min(this.to - this.from, this.full) / 4, MIN_SPAN * 20);
        this.setView(t - span / 2, t + span / 2);
        this.showGroup({ items: [{ from: t, to: t, count: 1, ev: i }] });
        this.root.scrollIntoView({ block: 'nearest', behavior: 'smooth' });
        return;
      }
    }
  };

  function copyText(text, button) {
    function done(msg) {
      button.textContent = msg;
      setTimeout(function () { button.textContent = 'Copy'; }, 1500);
    }
    function fallback() {
      var ta = document.createElement('textarea');
      ta.value = text;
      ta.style.position = 'fixed';
      ta.style.opacity = '0';
      document.body.appendChild(ta);
      ta.select();
      var ok = false;
      try { ok = document.execCommand('copy'); } catch (e) { ok = false; }
      document.body.removeChild(ta);
      done(ok ? 'Copied' : 'Select and copy');
    }
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(text).then(function () { done('Copied'); }, fallback);
    } else {
      fallback();
    }
  }

  document.addEventListener('click', function (e) {
    var b = e.target.closest('button.copy');
    if (b) { copyText(b.parentNode.querySelector('code').textContent, b); return; }
    var loc = e.target.closest('button.locate');
    if (loc && charts[+loc.getAttribute('data-chart')]) {
      charts[+loc.getAttribute('data-chart')].focusEvidence(+loc.getAttribute('data-evidence'));
    }
  });

  // Another page (forensics serve) draws a finding's swimlane with the
  // same code: forensicsSwimlane(element, data of report.Swimlane).
  window.forensicsSwimlane = function (root, d) {
    var c = new Chart(root, d, 0);
    c.render();
    return c;
  };

  // brokenNames lists the times, rule names and ids the layout broke inside
  // a word ("00:39:1" / "2.123", "kv-stream-" / "before-traffic"): there
  // must be none, at any width (the browser test reads the count).
  function brokenNames() {
    var out = [], r = document.createRange();
    document.querySelectorAll('time, code.rule, code.id').forEach(function (e) {
      var t = e.firstChild;
      if (e.getClientRects().length < 2 || !t || t.nodeType !== 3) return;
      for (var i = 1; i < t.length; i++) {
        r.setStart(t, i - 1); r.setEnd(t, i);
        var before = r.getBoundingClientRect().top;
        r.setStart(t, i); r.setEnd(t, i + 1);
        if (r.getBoundingClientRect().top > before + 1 && t.data[i - 1] !== ' ') { out.push(t.data); return; }
      }
    });
    return out;
  }

  var charts = [];
  if (document.getElementById('forensics-data')) try {
    var data = JSON.parse(document.getElementById('forensics-data').textContent);
    var roots = document.querySelectorAll('.chart[data-chart]');
    for (var i = 0; i < roots.length; i++) {
      var idx = +roots[i].getAttribute('data-chart');
      charts[idx] = new Chart(roots[i], data[idx], idx);
    }
    charts.forEach(function (c) { c.render(); });
    var resizing = null;
    window.addEventListener('resize', function () {
      clearTimeout(resizing);
      resizing = setTimeout(function () { charts.forEach(function (c) { c.render(); }); }, 100);
    });
    if (document.body.getAttribute('data-rendered') !== 'error') {
      var doc = document.documentElement;
      document.body.setAttribute('data-overflow', String(Math.max(0, doc.scrollWidth - doc.clientWidth)));
      var broken = brokenNames();
      document.body.setAttribute('data-broken', String(broken.length));
      document.body.setAttribute('data-broken-text', broken.slice(0, 5).join(' | '));
      document.body.setAttribute('data-rendered', 'ok');
      document.body.setAttribute('data-charts', String(roots.length));
    }
  } catch (err) {
    fail('timeline: ' + (err && err.stack || err));
  }
})();
