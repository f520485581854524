"use strict";
// weft dashboard: one snapshot from api/state, then server-sent events
// keep it current. No framework, no build step, nothing from the network.

let state = { servers: [], tools: [], withheld: [], active_calls: [], recent_calls: [], plans: [], sessions: [], agents: [] };
let agentTools = null; // the tools of the agent the tools page is filtered by, or null for every tool
let currentPlan = null;
const stepStates = {}; // plan id → step index → state

const $ = (sel) => document.querySelector(sel);

function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "class") e.className = v;
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v);
  }
  for (const c of children) e.append(c instanceof Node ? c : document.createTextNode(c ?? ""));
  return e;
}

function fill(tbody, rows) {
  tbody.replaceChildren(...rows);
}

function ms(v) { return v ? v.toFixed(1) : "–"; }
function time(t) { return new Date(t).toLocaleTimeString(); }

// ---- servers ----
function serverClass(s) {
  if (s.status === "disconnected" || s.breaker === "open") return "down";
  if (s.status === "active" && s.breaker === "closed") return "up";
  return "pending";
}

async function act(url, what) {
  const res = await fetch(url, { method: "POST", headers: { "Content-Type": "application/json" }, body: "{}" });
  $("#action-result").textContent = res.ok ? what + ": done" : what + ": " + (await res.text()).trim();
  $("#action-result").className = res.ok ? "note" : "error";
}

function renderServers() {
  fill($("#servers tbody"), state.servers.map((s) => {
    const name = encodeURIComponent(s.name);
    const base = "api/servers/" + name + "/";
    const st = s.stats || {};
    return el("tr", { class: serverClass(s), "data-server": s.name },
      el("td", {}, s.name),
      el("td", { class: "status" }, s.status),
      el("td", {}, s.breaker),
      el("td", { class: "num" }, String(s.in_flight)),
      el("td", { class: "num" }, ms(st.p50_ms)),
      el("td", { class: "num" }, ms(st.p99_ms)),
      el("td", { class: "num" }, String(st.calls || 0)),
      el("td", { class: "num" }, String(st.errors || 0)),
      el("td", { class: "num" }, String(st.reconnects || 0)),
      el("td", { class: "err" }, s.last_error || st.last_call_error || ""),
      el("td", {},
        el("button", { onclick: () => act(base + "reconnect", "reconnect " + s.name) }, "Reconnect"),
        el("button", { onclick: () => act(base + "disable", "disable " + s.name) }, "Disable"),
        el("button", { class: "danger", onclick: () => {
          if (confirm("Remove " + s.name + " from the config? Calls in flight finish first.")) act(base + "remove", "remove " + s.name);
        } }, "Remove")));
  }));
}

// ---- tools ----
function renderTools() {
  const q = $("#tool-search").value.toLowerCase();
  const rows = (agentTools || state.tools).filter((t) => !q || (t.name + " " + t.server + " " + (t.description || "")).toLowerCase().includes(q));
  fill($("#tools tbody"), rows.map((t) => el("tr", {},
    el("td", {}, t.name), el("td", {}, t.server), el("td", {}, t.listed ? "yes" : "search only"), el("td", {}, t.description || ""))));
  $("#withheld-box").style.display = state.withheld.length ? "" : "none";
  fill($("#withheld tbody"), state.withheld.map((w) => el("tr", {},
    el("td", {}, w.server), el("td", {}, w.tool),
    el("td", {}, el("button", { onclick: async () => {
      await act("api/approve/" + encodeURIComponent(w.server) + "/" + encodeURIComponent(w.tool), "approve " + w.server + "/" + w.tool);
      refresh();
    } }, "Approve")))));
}

// ---- agents ----
function renderAgents() {
  fill($("#agents tbody"), state.agents.map((a) => el("tr", { "data-agent": a.name },
    el("td", {}, a.name === "default" ? a.name : el("a", { href: "#tools", onclick: () => filterTools(a.name) }, a.name)),
    el("td", { class: "servers" }, (a.servers || []).join(", ")),
    el("td", { class: "num tools" }, a.tools_exposed + " / " + a.tools_total),
    el("td", { class: "num sessions" }, String(a.sessions)),
    el("td", { class: "num cost" }, (a.cost_usd || 0).toFixed(4)))));
  const pick = $("#tool-agent");
  const chosen = pick.value;
  const names = state.agents.map((a) => a.name).filter((n) => n !== "default");
  pick.replaceChildren(el("option", { value: "" }, "Every tool"), ...names.map((n) => el("option", { value: n }, "Agent " + n)));
  pick.value = names.includes(chosen) ? chosen : "";
}

// filterTools shows the tools the agent sees, under its names ("" : every tool).
async function filterTools(name) {
  $("#tool-agent").value = name;
  agentTools = null;
  if (name) {
    const res = await fetch("api/agents/" + encodeURIComponent(name) + "/tools");
    agentTools = res.ok ? await res.json() : [];
  }
  renderTools();
}

// ---- calls ----
function renderCalls() {
  fill($("#active tbody"), state.active_calls.map((c) => el("tr", {},
    el("td", {}, time(c.start)), el("td", {}, c.tool), el("td", {}, c.server), el("td", {}, c.face || ""),
    el("td", {}, c.client || c.agent || ""), el("td", {}, c.session || ""))));
  fill($("#recent tbody"), state.recent_calls.map((c) => el("tr", { class: c.outcome === "ok" ? "" : "down" },
    el("td", {}, time(c.start)), el("td", {}, c.tool), el("td", {}, c.server), el("td", { class: "num" }, ms(c.duration_ms)),
    el("td", { class: "status" }, c.outcome), el("td", {}, c.client || c.agent || ""), el("td", { class: "err" }, c.error || ""))));
}

function onCall(c) {
  state.active_calls = state.active_calls.filter((a) => a.id !== c.id);
  if (c.outcome) {
    state.recent_calls.unshift(c);
    state.recent_calls.length = Math.min(state.recent_calls.length, 100);
  } else {
    state.active_calls.push(c);
  }
  renderCalls();
}

// ---- plans: a layered drawing of the step graph ----
const SVG = "http://www.w3.org/2000/svg";
function svg(tag, attrs, text) {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
}

function layers(steps) {
  const byIndex = Object.fromEntries(steps.map((s) => [s.index, s]));
  const depth = {};
  const visit = (s, seen) => {
    if (depth[s.index] !== undefined) return depth[s.index];
    if (seen.has(s.index)) return 0; // a cycle: validation refuses these anyway
    seen.add(s.index);
    let d = 0;
    for (const p of s.depends_on || []) if (byIndex[p]) d = Math.max(d, visit(byIndex[p], seen) + 1);
    return (depth[s.index] = d);
  };
  steps.forEach((s) => visit(s, new Set()));
  return depth;
}

function renderPlans() {
  fill($("#plans"), state.plans.map((p) => el("li", {},
    el("a", { href: "#plans", class: currentPlan === p.id ? "current" : "", onclick: () => { currentPlan = p.id; renderPlans(); } },
      p.title || p.id))));
  const p = state.plans.find((x) => x.id === currentPlan);
  const dag = $("#dag");
  dag.replaceChildren();
  $("#plan-title").textContent = p ? p.title + " (" + p.id + ")" : state.plans.length ? "Pick a plan" : "No plans stored";
  if (!p) return;
  const depth = layers(p.steps);
  const cols = {};
  const W = 200, H = 54, GX = 60, GY = 20;
  const pos = {};
  for (const s of p.steps) {
    const d = depth[s.index];
    cols[d] = (cols[d] || 0) + 1;
    pos[s.index] = { x: 20 + d * (W + GX), y: 20 + (cols[d] - 1) * (H + GY) };
  }
  const width = 40 + (Math.max(0, ...Object.keys(cols).map(Number)) + 1) * (W + GX);
  const height = 40 + Math.max(1, ...Object.values(cols)) * (H + GY);
  dag.setAttribute("width", width);
  dag.setAttribute("height", height);
  const defs = svg("defs");
  const marker = svg("marker", { id: "arrow", viewBox: "0 0 10 10", refX: "10", refY: "5", markerWidth: "8", markerHeight: "8", orient: "auto" });
  marker.append(svg("path", { d: "M0,0 L10,5 L0,10 z", fill: "#9aa3b2" }));
  defs.append(marker);
  dag.append(defs);
  for (const s of p.steps) {
    for (const dep of s.depends_on || []) {
      const a = pos[dep], b = pos[s.index];
      if (!a) continue;
      const x1 = a.x + W, y1 = a.y + H / 2, x2 = b.x, y2 = b.y + H / 2;
      dag.append(svg("path", { d: `M${x1},${y1} C${x1 + GX / 2},${y1} ${x2 - GX / 2},${y2} ${x2},${y2}` }));
    }
  }
  const states = stepStates[p.id] || {};
  for (const s of p.steps) {
    const st = states[s.index] || "pending";
    const g = svg("g", { class: "step " + st, "data-step": s.index, transform: `translate(${pos[s.index].x},${pos[s.index].y})` });
    g.append(svg("rect", { width: W, height: H }));
    g.append(svg("text", { x: 10, y: 20 }, (s.index + ". " + s.title).slice(0, 30)));
    g.append(svg("text", { x: 10, y: 40, class: "state" }, st + " · " + (s.tools || []).join(", ").slice(0, 22)));
    dag.append(g);
  }
}

function onPlan(ev) {
  const m = (stepStates[ev.plan] = stepStates[ev.plan] || {});
  m[ev.step] = ev.state === "started" ? "running" : ev.state;
  if (!currentPlan) currentPlan = ev.plan;
  if (currentPlan === ev.plan) renderPlans();
}

// ---- sessions ----
function renderSessions() {
  fill($("#sessions tbody"), state.sessions.map((s) => el("tr", { "data-agent": s.agent || "default" },
    el("td", {}, s.agent || "default"), el("td", {}, s.face || ""), el("td", {}, s.session || "(stdio)"), el("td", {}, s.client || ""))));
}

function renderAll() {
  renderServers();
  renderTools();
  renderCalls();
  renderPlans();
  renderAgents();
  renderSessions();
}

async function refresh() {
  const res = await fetch("api/state");
  if (res.status === 401) { location.replace("login"); return; }
  const next = await res.json();
  for (const k of Object.keys(state)) state[k] = next[k] || [];
  renderAll();
  if ($("#tool-agent").value) filterTools($("#tool-agent").value);
}

function showPage() {
  const page = (location.hash || "#servers").slice(1);
  document.querySelectorAll(".page").forEach((p) => p.classList.toggle("current", p.id === "page-" + page));
  document.querySelectorAll("nav a").forEach((a) => a.classList.toggle("current", a.dataset.page === page));
}

function connect() {
  const es = new EventSource("events");
  es.onopen = () => { $("#conn").textContent = "live"; $("#conn").className = "conn live"; refresh(); };
  es.onerror = () => { $("#conn").textContent = "reconnecting…"; $("#conn").className = "conn"; };
  es.addEventListener("servers", (e) => { state.servers = JSON.parse(e.data); renderServers(); });
  es.addEventListener("server", (e) => {
    const ev = JSON.parse(e.data);
    if (ev.Status === "removed" || ev.Status === "active") refresh(); // the tools changed too
  });
  es.addEventListener("call", (e) => onCall(JSON.parse(e.data)));
  es.addEventListener("plan", (e) => onPlan(JSON.parse(e.data)));
  es.addEventListener("agents", (e) => { state.agents = JSON.parse(e.data); renderAgents(); });
  es.addEventListener("sessions", (e) => { state.sessions = JSON.parse(e.data); renderSessions(); });
}

window.addEventListener("hashchange", showPage);
$("#tool-search").addEventListener("input", renderTools);
$("#tool-agent").addEventListener("change", () => filterTools($("#tool-agent").value));
showPage();
connect();
