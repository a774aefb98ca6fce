// medteam view: the grid, the filters and a question's deliberation.
// Every dataset field is put into the page as text (textContent), never as
// markup. The state lives in the URL's hash, so a view can be bookmarked.
'use strict';
(function () {
  const STATIC = document.body.dataset.static === '1';
  const PAGE = 100;
  const $ = (id) => document.getElementById(id);
  let meta = null, phasesInfo = null, staticGrid = null;

  // ---- data: the JSON API, or data/*.js files in the exported copy ----
  const waiting = {};
  window.medteamData = function (name, value) {
    const w = waiting[name];
    if (w) { delete waiting[name]; w.resolve(value); }
  };
  function loadStatic(name) {
    return new Promise((resolve, reject) => {
      waiting[name] = {resolve, reject};
      const s = document.createElement('script');
      s.src = 'data/' + name + '.js';
      s.onerror = () => { delete waiting[name]; reject(new Error('cannot load data/' + name + '.js')); };
      document.head.appendChild(s);
      s.onload = () => s.remove();
    });
  }
  async function api(path, params) {
    const u = new URL(path, location.href);
    for (const [k, v] of Object.entries(params || {})) u.searchParams.set(k, v);
    const r = await fetch(u);
    if (!r.ok) throw new Error(path + ': ' + (await r.text()));
    return r.json();
  }
  const getMeta = () => STATIC ? loadStatic('meta') : api('api/meta');
  const getPhases = () => STATIC ? loadStatic('phases') : api('api/phases');
  const getQuestion = (id, arms) => STATIC ? loadStatic('q/' + id) : api('api/question', {id, arms: arms.join(',')});

  // The exported copy filters in the page; the server filters with the same
  // rules (view.Filter.Match).
  function match(f, l) {
    if (f.status) {
      let hit = false;
      l.cells.forEach((c, i) => { if ((f.arm < 0 || f.arm === i) && c.s === f.status) hit = true; });
      if (!hit) return false;
    }
    if (f.disagree && !l.disagree) return false;
    if (f.subject && l.subject !== f.subject) return false;
    if (f.phase && !(l.phases || []).includes(f.phase)) return false;
    if (f.q && !l.q.toLowerCase().includes(f.q.toLowerCase())) return false;
    return true;
  }
  async function getGrid(f, offset) {
    if (!STATIC) {
      const p = {offset, limit: PAGE, arm: f.arm};
      for (const k of ['status', 'subject', 'phase', 'q']) if (f[k]) p[k] = f[k];
      if (f.disagree) p.disagree = 1;
      return api('api/grid', p);
    }
    if (!staticGrid) staticGrid = await loadStatic('grid');
    const hits = staticGrid.lines.filter((l) => match(f, l));
    return {total: hits.length, all: staticGrid.lines.length, offset, lines: hits.slice(offset, offset + PAGE)};
  }

  // ---- state in the hash ----
  function state() {
    const h = new URLSearchParams(location.hash.slice(1));
    return {
      status: h.get('status') || '', arm: parseInt(h.get('arm') || '-1', 10), disagree: h.get('disagree') === '1',
      subject: h.get('subject') || '', phase: h.get('phase') || '', q: h.get('q') || '',
      page: parseInt(h.get('page') || '0', 10), id: h.get('id'), a: h.get('a'), b: h.get('b'), qp: h.get('qp') || '',
    };
  }
  function setState(changes) {
    const s = Object.assign(state(), changes);
    const h = new URLSearchParams();
    if (s.status) h.set('status', s.status);
    if (s.arm >= 0) h.set('arm', s.arm);
    if (s.disagree) h.set('disagree', '1');
    if (s.subject) h.set('subject', s.subject);
    if (s.phase) h.set('phase', s.phase);
    if (s.q) h.set('q', s.q);
    if (s.page > 0) h.set('page', s.page);
    if (s.id !== null && s.id !== undefined) { h.set('id', s.id); h.set('a', s.a); h.set('b', s.b); }
    if (s.qp) h.set('qp', s.qp);
    location.hash = h.toString();
  }

  // ---- DOM helpers: text only ----
  function el(tag, attrs, ...kids) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (k === 'class') e.className = v;
      else if (k === 'text') e.textContent = v;
      else if (k.startsWith('data-')) e.setAttribute(k, v);
      else e[k] = v;
    }
    for (const k of kids) if (k !== null && k !== undefined) e.append(k instanceof Node ? k : String(k));
    return e;
  }
  function option(value, text) { return el('option', {value: String(value), text}); }
  function fillSelect(sel, items, keep) {
    while (sel.options.length > keep) sel.remove(keep);
    for (const [v, t] of items) sel.append(option(v, t));
  }

  // ---- the grid ----
  function filterFromState(s) {
    return {status: s.status, arm: s.arm, disagree: s.disagree, subject: s.subject, phase: s.phase, q: s.q};
  }
  let gridSeq = 0;
  async function renderGrid(s) {
    $('grid-view').hidden = false;
    $('question-view').hidden = true;
    $('f-status').value = s.status;
    $('f-arm').value = String(s.arm);
    $('f-disagree').checked = s.disagree;
    $('f-subject').value = s.subject;
    $('f-phase').value = s.phase;
    if (document.activeElement !== $('f-q')) $('f-q').value = s.q;
    const seq = ++gridSeq;
    const page = await getGrid(filterFromState(s), s.page * PAGE);
    if (seq !== gridSeq) return;
    const tb = $('grid').tBodies[0];
    tb.replaceChildren();
    for (const l of page.lines) {
      const tr = el('tr', {'data-id': l.id, tabIndex: 0, class: l.disagree ? 'disagree' : ''},
        el('td', {class: 'num', text: l.id}), el('td', {class: 'qid', text: l.q, title: l.dataset}),
        el('td', {class: 'stem', text: l.stem || '', title: l.stem || ''}),
        el('td', {class: 'num', text: l.rep}), el('td', {text: l.subject || ''}), el('td', {class: 'gold', text: l.gold}));
      l.cells.forEach((c) => tr.append(el('td', {class: 'cell ' + (c.s || 'none'), title: c.s || 'no row', text: c.s ? (c.p || (c.s === 'error' ? '!' : '–')) : ''})));
      tr.addEventListener('click', () => openQuestion(l.id));
      tr.addEventListener('keydown', (e) => { if (e.key === 'Enter') openQuestion(l.id); });
      tb.append(tr);
    }
    $('count').textContent = page.total + ' of ' + page.all + ' questions × repeats match';
    const from = page.total ? page.offset + 1 : 0, to = page.offset + page.lines.length;
    $('pageinfo').textContent = 'rows ' + from + '–' + to + ' of ' + page.total;
    $('prev').disabled = s.page <= 0;
    $('next').disabled = to >= page.total;
    document.body.dataset.gridReady = String(seq);
  }
  function openQuestion(id) {
    const s = state();
    const arms = meta.arms.length;
    const a = s.arm >= 0 ? s.arm : 0;
    const b = arms > 1 ? (a === 0 ? 1 : 0) : a;
    setState({id, a, b});
  }

  // ---- a question ----
  function kv(dl, k, v) {
    if (v === undefined || v === null || v === '' || (Array.isArray(v) && v.length === 0)) return;
    dl.append(el('dt', {text: k}), el('dd', {text: Array.isArray(v) ? v.join(' · ') : String(v)}));
  }
  // The question's text, options (gold marked) and every arm's answer.
  function itemBox(q) {
    const box = $('q-item');
    box.replaceChildren();
    const it = q.item;
    if (!it) {
      box.append(el('p', {class: 'note noitem', text: q.item_note}));
    } else {
      for (const c of it.Context || []) box.append(el('p', {class: 'context', text: c}));
      box.append(el('p', {class: 'stem', text: it.Stem}));
      const ol = el('ol', {class: 'options'});
      (it.Options || []).forEach((o, i) => {
        const letter = String.fromCharCode(65 + i), gold = letter === it.Gold;
        ol.append(el('li', {class: gold ? 'gold' : '', 'data-letter': letter},
          el('b', {text: letter + '. '}), o, gold ? el('span', {class: 'goldmark', text: ' ✓ gold'}) : null));
      });
      box.append(ol);
    }
    const tb = el('tbody');
    for (const a of q.answers) {
      const right = a.s === 'correct' ? 'right' : a.s === 'wrong' ? 'wrong' : a.s;
      tb.append(el('tr', {}, el('td', {class: 'arm', text: a.arm}), el('td', {class: 'num', text: a.rep}),
        el('td', {class: 'cell ' + a.s, text: a.p || '–'}), el('td', {class: 'verdict ' + a.s, text: right})));
    }
    box.append(el('table', {class: 'answers'}, el('thead', {}, el('tr', {}, el('th', {text: 'arm'}), el('th', {text: 'rep'}),
      el('th', {text: 'answer'}), el('th', {text: 'right?'}))), tb));
  }
  function pane(d, qp) {
    const arm = meta.arms[d.arm];
    const box = el('article', {class: 'pane', 'data-arm': d.arm}, el('h3', {text: arm.label}));
    const row = d.row;
    if (!row) { box.append(el('p', {class: 'note', text: 'This arm has no row for this question.'})); return box; }
    const st = row.Error ? 'error' : row.Abstained ? 'abstained' : row.Correct ? 'correct' : 'wrong';
    box.append(el('p', {class: 'verdict ' + st, text: st + ': predicted ' + (row.Predicted || '—') + ', gold ' + row.Gold}));
    const dl = el('dl', {class: 'agg'});
    kv(dl, 'protocol', row.Protocol);
    kv(dl, 'decision rule', row.DecisionRule);
    kv(dl, 'tie', row.Tie ? 'yes: ' + (row.Tied || []).join(', ') + (row.TieBrokenBy ? ' (broken by ' + row.TieBrokenBy + ')' : '') : 'no');
    const sh = d.shown || {};
    kv(dl, 'scores', sh.scores);
    kv(dl, 'rounds (first choices per agent)', (row.Rounds || []).map((r, i) => (i === 0 ? 'initial' : 'turn ' + i) + ': ' + (r || '∅')));
    kv(dl, 'roles', row.Roles);
    kv(dl, 'confidences', sh.confidences);
    kv(dl, 'agreement initial → final', sh.agreement ? sh.agreement + (row.Unanimous ? ' (unanimous)' : '') : '');
    kv(dl, 'abstained because', row.AbstainReason);
    kv(dl, 'route', row.Route);
    kv(dl, 'error', row.Error ? row.ErrorClass + ': ' + row.Error : '');
    kv(dl, 'calls · tokens · latency', row.Calls + ' calls · ' + row.PromptTokens + ' + ' + row.CompletionTokens + ' tokens · ' + sh.latency);
    kv(dl, 'parse failures', row.ParseFailures || '');
    box.append(dl);
    if (row.ProtocolJSON) {
      let txt = row.ProtocolJSON;
      try { txt = JSON.stringify(JSON.parse(txt), null, 1); } catch (e) { /* shown as stored */ }
      box.append(el('details', {class: 'pj'}, el('summary', {text: 'protocol_json (the protocol\'s record of its decision)'}), el('pre', {text: txt})));
    }
    if (!d.calls_file) box.append(el('p', {class: 'note', text: 'This run has no calls.parquet.'}));
    else if (!d.transcripts) box.append(el('p', {class: 'note notranscripts', text: 'Prompts and replies were not kept: this run was made without --transcripts. Rerun with --transcripts to read them; the calls below show their metadata only.'}));
    const lat = new Map(d.calls.map((c, i) => [c, (sh.call_latency || [])[i]]));
    const calls = d.calls.filter((c) => !qp || c.Phase === qp);
    box.append(el('h4', {text: calls.length + ' call' + (calls.length === 1 ? '' : 's') + (qp ? ' in phase ' + qp : '') + ', in order'}));
    const ol = el('ol', {class: 'calls'});
    for (const c of calls) {
      const tok = c.PromptTokens === null || c.CompletionTokens === null ? 'tokens n/a' : c.PromptTokens + ' + ' + c.CompletionTokens + ' tok';
      const who = c.Agent < 0 ? 'leader' : 'agent ' + c.Agent;
      const head = [c.UnitTry ? 'try ' + c.UnitTry : '', '#' + c.Seq, c.Phase, c.Kind, 'turn ' + c.Turn, who, c.Role, tok,
        lat.get(c), c.Cached ? 'cached' : '', c.Status === 'ok' ? '' : c.Status, 'parse ' + (c.ParseMethod || '–')].filter(Boolean).join(' · ');
      const det = el('details', {class: 'call ' + (c.Status === 'ok' ? '' : 'failed')}, el('summary', {text: head}));
      const meta2 = el('dl', {class: 'callmeta'});
      kv(meta2, 'model', c.Model);
      kv(meta2, 'attempts', c.Attempts > 1 ? c.Attempts + ' (' + (c.AttemptErrors || []).join(', ') + ')' : '');
      kv(meta2, 'error', c.Error ? c.ErrorClass + ': ' + c.Error : '');
      kv(meta2, 'parse error', c.ParseError);
      kv(meta2, 'parse reason', c.ParseReason);
      kv(meta2, 'parse notes', c.ParseNotes);
      det.append(meta2);
      if (d.transcripts) {
        det.append(el('h5', {text: 'prompt'}), el('pre', {class: 'prompt', text: c.Prompt}),
          el('h5', {text: 'reply'}), el('pre', {class: 'reply', text: c.Response}));
      }
      ol.append(el('li', {}, det));
    }
    box.append(ol);
    return box;
  }
  let qSeq = 0;
  async function renderQuestion(s) {
    $('grid-view').hidden = true;
    $('question-view').hidden = false;
    const id = parseInt(s.id, 10);
    const n = meta.arms.length;
    const a = Math.min(Math.max(parseInt(s.a || '0', 10) || 0, 0), n - 1);
    const b = Math.min(Math.max(parseInt(s.b || '0', 10) || 0, 0), n - 1);
    $('arm-a').value = String(a);
    $('arm-b').value = String(b);
    const seq = ++qSeq;
    const q = await getQuestion(id, a === b ? [a] : [a, b]);
    if (seq !== qSeq) return;
    const l = q.line;
    $('q-title').textContent = 'Question ' + l.q + (l.rep ? ' · repeat ' + l.rep : '');
    $('q-info').textContent = [l.dataset, l.subject, 'gold ' + l.gold, l.disagree ? 'arms disagree' : 'arms agree'].filter(Boolean).join(' · ');
    itemBox(q);
    const phases = new Set();
    q.arms.forEach((d) => d.calls.forEach((c) => phases.add(c.Phase)));
    fillSelect($('q-phase'), [...phases].map((p) => [p, p]), 1);
    $('q-phase').value = phases.has(s.qp) ? s.qp : '';
    const byArm = {};
    for (const d of q.arms) byArm[d.arm] = d;
    const panes = $('panes');
    panes.replaceChildren(pane(byArm[a], $('q-phase').value));
    if (b !== a) panes.append(pane(byArm[b], $('q-phase').value));
    document.body.dataset.questionReady = l.id + ':' + a + ':' + b;
  }

  // ---- wiring ----
  async function render() {
    const s = state();
    try {
      if (s.id !== null && s.id !== undefined && s.id !== '') await renderQuestion(s);
      else await renderGrid(s);
    } catch (e) {
      $('note').hidden = false;
      $('note').textContent = 'Could not load: ' + e.message;
      document.body.dataset.failed = e.message;
    }
  }
  async function start() {
    meta = await getMeta();
    const head = $('grid').tHead;
    const hr = el('tr', {}, el('th', {text: '#'}), el('th', {text: 'question'}), el('th', {text: 'stem'}), el('th', {text: 'rep'}), el('th', {text: 'subject'}), el('th', {text: 'gold'}));
    for (const a of meta.arms) hr.append(el('th', {class: 'arm', text: a.label}));
    head.replaceChildren(hr);
    const arms = meta.arms.map((a, i) => [i, a.label]);
    fillSelect($('f-arm'), arms, 1);
    fillSelect($('arm-a'), arms, 0);
    fillSelect($('arm-b'), arms, 0);
    fillSelect($('f-subject'), meta.subjects.map((x) => [x, x]), 1);
    const f = $('filters');
    f.addEventListener('submit', (e) => e.preventDefault());
    const onFilter = () => setState({status: $('f-status').value, arm: parseInt($('f-arm').value, 10), disagree: $('f-disagree').checked,
      subject: $('f-subject').value, phase: $('f-phase').value, q: $('f-q').value, page: 0, id: null});
    for (const id of ['f-status', 'f-arm', 'f-disagree', 'f-subject', 'f-phase']) $(id).addEventListener('change', onFilter);
    $('f-q').addEventListener('input', onFilter);
    $('prev').addEventListener('click', () => setState({page: Math.max(0, state().page - 1)}));
    $('next').addEventListener('click', () => setState({page: state().page + 1}));
    $('back').addEventListener('click', () => setState({id: null, qp: ''}));
    $('arm-a').addEventListener('change', () => setState({a: $('arm-a').value}));
    $('arm-b').addEventListener('change', () => setState({b: $('arm-b').value}));
    $('q-phase').addEventListener('change', () => setState({qp: $('q-phase').value}));
    window.addEventListener('hashchange', render);
    await render();
    // Phases (and whether texts were kept) need calls.parquet indexed: after the first rows.
    phasesInfo = await getPhases();
    fillSelect($('f-phase'), phasesInfo.phases.map((p) => [p, p]), 1);
    $('f-phase').value = state().phase;
    if (phasesInfo.no_transcripts.length) {
      $('note').hidden = false;
      $('note').textContent = 'No prompts or replies in ' + phasesInfo.no_transcripts.join(', ') +
        ': the run was made without --transcripts, so only each call\'s metadata can be shown. Rerun with --transcripts to read what the agents said.';
    }
    document.body.dataset.phasesReady = '1';
  }
  start().catch((e) => {
    $('note').hidden = false;
    $('note').textContent = 'Could not load the run: ' + e.message;
    document.body.dataset.failed = e.message;
  });
})();
