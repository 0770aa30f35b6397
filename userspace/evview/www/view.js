// SPDX-License-Identifier: GPL-2.0
// evview's page: a timeline per CPU from /api/window (one column per canvas
// pixel), zoom and pan, a selection's events (/api/events) and statistics
// (/api/stats?from&to), and the whole trace's statistics once the server's
// background pass is ready (/api/progress, server-sent events).
"use strict";

// Realtime nanoseconds do not fit a double (2^53): the server's big integers
// are read as strings, kept as BigInt, and the view works in ns from the
// trace's first_rt (Numbers: exact up to 104 days).
const BIG_KEYS = /"(first_rt|last_rt|offset_ns|from|to|realtime|ts|begin_rt|end_rt|begin|end)":(\d{16,})/g;

// The API's secret: from the address evview printed (#token=..., a fragment
// the browser never sends anywhere), kept for this tab (sessionStorage is
// per origin: this server's port alone) and taken out of the address, so
// that a view's link carries no secret.
const TOKEN = (() => {
	const m = /(?:^#|&)token=([0-9a-f]+)/.exec(location.hash);
	if (m) {
		sessionStorage.setItem("evview-token", m[1]);
		const rest = location.hash.slice(1).split("&").filter((p) => !p.startsWith("token=")).join("&");
		history.replaceState(null, "", rest ? "#" + rest : location.pathname);
	}
	return sessionStorage.getItem("evview-token") || "";
})();

async function getJSON(url) {
	const r = await fetch(url, { headers: { Authorization: "Bearer " + TOKEN }, referrerPolicy: "no-referrer" });
	if (r.status === 401)
		throw new Error("this page needs the address evview printed, with its #token=...");
	const text = await r.text();
	const data = JSON.parse(text.replace(BIG_KEYS, '"$1":"$2"'));
	if (!r.ok)
		throw new Error(data.error || r.status + " " + r.statusText);
	return data;
}

const $ = (sel) => document.querySelector(sel);

function el(tag, attrs, ...kids) {
	const e = document.createElement(tag);
	for (const [k, v] of Object.entries(attrs || {})) {
		if (k === "class")
			e.className = v;
		else if (k.startsWith("data-"))
			e.setAttribute(k, v);
		else
			e[k] = v;
	}
	for (const k of kids)
		e.append(k instanceof Node ? k : document.createTextNode(String(k)));
	return e;
}

const view = {
	trace: null,
	base: 0n,		// first_rt
	span: 0,		// last_rt - first_rt
	from: 0, to: 0,		// the window shown, ns from base
	win: null,		// the last /api/window answer
	seq: 0, inflight: false, again: false,
	sel: null,		// {from, to} ns from base
	// The events pager: the first page by offset 0, the next ones by the cursor
	// the previous page named ("next"); back through a stack of the cursors of
	// the pages before (null: the first page). evOffset: the shown page's first
	// event's number, for the label only.
	evOffset: 0, evLimit: 100,
	evAfter: null, evStack: [], evNext: null, evSeq: 0,
	names: new Map(),	// tid -> comm, from every window seen
	threads: [],		// tids with a lane of their own (/api/thread)
	statsReady: false,
};

function showError(msg) {
	const e = $("#error");
	e.textContent = msg;
	e.classList.remove("hidden");
}

function rt(ns) {
	return (view.base + BigInt(Math.round(ns))).toString();
}

function fmtDur(ns) {
	if (ns >= 1e9)
		return (ns / 1e9).toFixed(3) + " s";
	if (ns >= 1e6)
		return (ns / 1e6).toFixed(3) + " ms";
	if (ns >= 1e3)
		return (ns / 1e3).toFixed(3) + " µs";
	return Math.round(ns) + " ns";
}

// Hue by the golden angle, and lightness and saturation by the tid too: two
// threads whose hues meet (tids 8 apart are 20° apart) still differ.
function threadColor(tid) {
	const light = [46, 60, 38][tid % 3], sat = [62, 45][Math.floor(tid / 3) % 2];
	return "hsl(" + ((tid * 137.508) % 360).toFixed(1) + "," + sat + "%," + light + "%)";
}

// ---- Colours: one table for the lanes and the legend ----

const IDLE_COLOR = "#eef0f2", IRQ_COLOR = "#e08a00", SOFTIRQ_COLOR = "#7b4fc9";
// A thread lane's states other than running (which is the thread's own colour).
const STATE_COLORS = { runnable: "#f3c969", blocked: "#c9d6e3", irq: IRQ_COLOR, softirq: SOFTIRQ_COLOR,
	exited: "#8a8f96", unknown: "#ffffff" };
// The legend: what each colour means, in the CPU lanes and the thread lanes.
const STATE_LEGEND = [
	["running", "running: the thread's own colour (height: its share of the column)",
		"linear-gradient(90deg," + [1, 2, 3, 4].map((t) => threadColor(1000 + 7 * t)).join(",") + ")"],
	["runnable", "runnable: woken or preempted, waiting for a CPU (thread lanes)", STATE_COLORS.runnable],
	["blocked", "blocked: asleep (thread lanes)", STATE_COLORS.blocked],
	["idle", "idle: no thread on the CPU", IDLE_COLOR],
	["irq", "IRQ: a hard interrupt (CPU lanes: the top strip)", IRQ_COLOR],
	["softirq", "softirq (CPU lanes: the strip below the IRQs')", SOFTIRQ_COLOR],
	["exited", "exited (thread lanes)", STATE_COLORS.exited],
	["unknown", "unknown: nothing told yet (thread lanes)", STATE_COLORS.unknown],
	["lost", "lost: events the tracer discarded in this window, on some CPU (every lane)", null],
];

function renderStateLegend() {
	const box = $("#state-legend");
	box.textContent = "";
	for (const [state, text, color] of STATE_LEGEND) {
		const swatch = el("span", { class: "swatch" + (color ? "" : " loss-pattern") });
		if (color)
			swatch.style.background = color;
		box.append(el("span", { class: "state", "data-state": state, title: text }, swatch,
			el("span", { class: "state-name" }, text.split(":")[0].split(" (")[0])));
	}
}

// ---- Losses: shaded over every lane, said in the header ----

function renderLossHeader() {
	const l = view.trace.losses, h = $("#trace-losses");
	if (!l) {
		h.textContent = "";
		return;
	}
	h.className = l.complete ? "complete" : "lossy";
	h.textContent = l.complete ? "complete: no events lost" : "INCOMPLETE: " + l.discarded + " events and " +
		l.lost_packets + " packets lost, in " + l.loss_ranges + " ranges (shaded)";
	h.dataset.discarded = l.discarded;
	h.dataset.packetsLost = l.lost_packets;
	h.dataset.ranges = l.loss_ranges;
}

// The loss windows in view, each a striped box over the CPU and thread lanes (at least 3 px wide).
function drawLosses() {
	const box = $("#loss-shades"), lane = laneCanvases()[0];
	box.textContent = "";
	const l = view.trace && view.trace.losses;
	if (!l || !lane || !l.windows.length)
		return;
	const range = view.to - view.from, width = lane.clientWidth;
	const lanes = $("#lanes"), threads = $("#thread-lanes");
	const top = lanes.offsetTop, height = threads.offsetTop + threads.offsetHeight - lanes.offsetTop;
	for (const w of l.windows) {
		const a = Number(BigInt(w.from) - view.base), b = Number(BigInt(w.to) - view.base);
		if (b < view.from || a > view.to || range <= 0)
			continue;
		const x0 = Math.max(0, (a - view.from) / range * width), x1 = Math.min(width, (b - view.from) / range * width);
		const d = el("div", { class: "loss-shade loss-pattern", "data-from": w.from, "data-to": w.to });
		d.style.left = (lane.offsetLeft + Math.min(x0, width - 3)) + "px";
		d.style.width = Math.max(3, x1 - x0) + "px";
		d.style.top = top + "px";
		d.style.height = height + "px";
		box.append(d);
	}
}

// Whether [a, b] (ns from base) meets a loss window.
function inLoss(a, b) {
	const l = view.trace && view.trace.losses;
	return !!l && l.windows.some((w) => Number(BigInt(w.from) - view.base) <= b && a <= Number(BigInt(w.to) - view.base));
}

// ---- Lanes ----

function buildLanes() {
	const lanes = $("#lanes");
	lanes.textContent = "";
	for (const cpu of view.trace.cpus) {
		const c = el("canvas", { class: "lane-canvas", height: 28 });
		lanes.append(el("div", { class: "lane", "data-cpu": cpu },
			el("span", { class: "lane-label" }, "CPU " + cpu,
				el("span", { class: "lane-power", "data-cpu": cpu })), c));
	}
}

function laneCanvases() {
	return Array.from(document.querySelectorAll("#lanes .lane canvas"));
}

function columns() {
	const c = laneCanvases()[0];
	// As many as the server allows for this many CPUs (/api/trace's max_cols).
	const most = view.trace && view.trace.max_cols ? view.trace.max_cols : 4096;
	return c ? Math.max(1, Math.min(most, Math.floor(c.clientWidth))) : Math.min(most, 800);
}

// A lane's label says its frequencies and idle share in view (null: the VM or trace had none).
function powerLabel(cpu, lane) {
	const label = document.querySelector('.lane-power[data-cpu="' + cpu + '"]');
	if (!label)
		return;
	const f = (lane.freq || []).filter((v) => v !== null), idle = (lane.idle || []).filter((v) => v !== null);
	let text = "";
	if (f.length)
		text += " " + Math.round(Math.min(...f) / 1000) + (Math.min(...f) === Math.max(...f) ? "" :
			"-" + Math.round(Math.max(...f) / 1000)) + " MHz";
	if (idle.length)
		text += " idle " + Math.round(100 * idle.filter((v) => v >= 0).length / idle.length) + "%";
	label.textContent = text;
}

function draw() {
	const w = view.win;
	view.maxFreq = 0;
	for (const lane of (w ? w.cpus : []))
		for (const v of (lane.freq || []))
			if (v !== null && v > view.maxFreq)
				view.maxFreq = v;
	for (const c of laneCanvases()) {
		const cpu = Number(c.parentNode.dataset.cpu);
		const width = Math.max(1, Math.floor(c.clientWidth));
		if (c.width !== width)
			c.width = width;
		const g = c.getContext("2d");
		g.fillStyle = IDLE_COLOR;
		g.fillRect(0, 0, c.width, c.height);
		const lane = w && w.cpus.find((x) => x.cpu === cpu);
		if (!lane)
			continue;
		const scale = c.width / w.cols;
		const h = c.height;
		for (let k = 0; k < w.cols; k++) {
			const x = k * scale, busy = lane.busy[k];
			if (lane.tid[k] !== null && busy > 0) {
				const bh = Math.max(2, Math.round(busy * (h - 6)));
				g.fillStyle = threadColor(lane.tid[k]);
				g.fillRect(x, h - bh, Math.max(1, scale), bh);
			}
			// Interrupts: the top strip IRQs, below it softirqs (taller: more of them).
			if (lane.irq[k] > 0) {
				g.fillStyle = IRQ_COLOR;
				g.fillRect(x, 0, Math.max(1, scale), Math.min(3, 1 + Math.log2(lane.irq[k])));
			}
			if (lane.softirq[k] > 0) {
				g.fillStyle = SOFTIRQ_COLOR;
				g.fillRect(x, 3, Math.max(1, scale), Math.min(3, 1 + Math.log2(lane.softirq[k])));
			}
			// Power: the bottom strip a C-state (darker: deeper), above it the frequency.
			const idle = lane.idle ? lane.idle[k] : null, freq = lane.freq ? lane.freq[k] : null;
			if (idle !== null && idle >= 0) {
				g.fillStyle = "hsl(215,60%," + Math.max(25, 70 - 12 * idle) + "%)";
				g.fillRect(x, h - 3, Math.max(1, scale), 3);
			}
			if (freq !== null && view.maxFreq > 0) {
				g.fillStyle = "hsla(140,55%,35%," + (0.2 + 0.8 * freq / view.maxFreq).toFixed(2) + ")";
				g.fillRect(x, h - 6, Math.max(1, scale), 3);
			}
		}
		powerLabel(cpu, lane);
	}
	drawAxis();
	drawSelection();
	drawLosses();
	$("#view-range").textContent = "showing " + fmtDur(view.to - view.from) + " from +" + fmtDur(view.from) +
		(w && w.detail === "sample" ? " (sampled: exact once the background pass is done)" :
			w && w.incomplete ? " (incomplete: some CPUs' threads unknown until the background pass is done)" : "");
}

function drawAxis() {
	const a = $("#axis");
	const lane = laneCanvases()[0];
	const left = lane ? lane.offsetLeft - a.offsetLeft : 0;
	a.width = Math.max(1, a.clientWidth);
	const g = a.getContext("2d");
	g.clearRect(0, 0, a.width, a.height);
	g.fillStyle = "#56606b";
	g.font = "11px system-ui, sans-serif";
	const width = lane ? lane.clientWidth : a.width;
	const range = view.to - view.from;
	if (range <= 0)
		return;
	let step = Math.pow(10, Math.floor(Math.log10(range / 6)));
	if (range / step > 12)
		step *= 5;
	else if (range / step > 6)
		step *= 2;
	for (let t = Math.ceil(view.from / step) * step; t <= view.to; t += step) {
		const x = left + (t - view.from) / range * width;
		g.fillRect(x, 14, 1, 8);
		g.fillText("+" + fmtDur(t), x + 2, 11);
	}
}

function drawSelection() {
	const box = $("#selection-box");
	const lane = laneCanvases()[0];
	if (!view.sel || !lane) {
		box.classList.add("hidden");
		return;
	}
	const range = view.to - view.from;
	const x0 = (view.sel.from - view.from) / range * lane.clientWidth;
	const x1 = (view.sel.to - view.from) / range * lane.clientWidth;
	const l = Math.max(0, x0), r = Math.min(lane.clientWidth, x1);
	if (r < l) {
		box.classList.add("hidden");
		return;
	}
	const lanes = $("#lanes"), threads = $("#thread-lanes");
	box.style.left = (lane.offsetLeft + l) + "px";
	box.style.width = Math.max(1, r - l) + "px";
	box.style.top = lanes.offsetTop + "px";
	box.style.height = (threads.offsetTop + threads.offsetHeight - lanes.offsetTop) + "px";
	box.classList.remove("hidden");
}

function renderLegend() {
	const legend = $("#legend");
	legend.textContent = "";
	const w = view.win;
	if (!w)
		return;
	const seen = new Map();
	for (const lane of w.cpus)
		for (const t of lane.tid)
			if (t !== null)
				seen.set(t, (seen.get(t) || 0) + 1);
	const tids = Array.from(seen.keys()).sort((a, b) => seen.get(b) - seen.get(a)).slice(0, 24);
	for (const t of tids) {
		const item = el("span", { class: "thread" + (view.threads.includes(t) ? " shown" : ""), "data-tid": t,
			title: "a lane for this thread" },
			el("span", { class: "swatch", style: "background:" + threadColor(t) }),
			el("span", { class: "thread-name" }, (w.threads[t] || "?") + " (" + t + ")"));
		item.addEventListener("click", () => toggleThread(t));
		legend.append(item);
	}
}

// ---- Thread lanes (from the state result: no event is read for them) ----

function toggleThread(tid) {
	const i = view.threads.indexOf(tid);
	if (i >= 0)
		view.threads.splice(i, 1);
	else
		view.threads.push(tid);
	buildThreadLanes();
	renderLegend();
	saveAddress();
	drawLosses();
	loadThreads();
}

function buildThreadLanes() {
	const box = $("#thread-lanes");
	box.textContent = "";
	for (const tid of view.threads) {
		const label = el("span", { class: "lane-label", title: "remove this lane" },
			(view.names.get(tid) || "?") + " (" + tid + ")");
		label.addEventListener("click", () => toggleThread(tid));
		box.append(el("div", { class: "lane thread-lane", "data-tid": tid }, label,
			el("canvas", { class: "thread-canvas", height: 28 })));
	}
}

async function loadThreads() {
	for (const tid of view.threads) {
		const lane = document.querySelector('#thread-lanes .thread-lane[data-tid="' + tid + '"]');
		if (!lane)
			continue;
		const c = lane.querySelector("canvas");
		const width = Math.max(1, Math.min(4096, Math.floor(c.clientWidth)));
		try {
			const t = await getJSON("/api/thread?tid=" + tid + "&from=" + rt(view.from) + "&to=" + rt(view.to) +
				"&cols=" + width);
			drawThread(c, t);
			lane.querySelector(".lane-label").textContent = t.computing ? "(state: " + t.percent + " %)" :
				t.comm + " (" + tid + ")";
		} catch (e) {
			lane.querySelector(".lane-label").textContent = e.message;
		}
	}
}

function drawThread(c, t) {
	if (c.width !== Math.floor(c.clientWidth))
		c.width = Math.max(1, Math.floor(c.clientWidth));
	const g = c.getContext("2d");
	g.fillStyle = IDLE_COLOR;
	g.fillRect(0, 0, c.width, c.height);
	if (t.computing)
		return;
	const scale = c.width / t.cols, h = c.height;
	for (let k = 0; k < t.cols; k++) {
		const x = k * scale, w = Math.max(1, scale);
		if (t.state[k] && STATE_COLORS[t.state[k]]) {
			g.fillStyle = STATE_COLORS[t.state[k]];
			g.fillRect(x, 0, w, h);
		}
		if (t.running[k] > 0) {
			const bh = Math.max(2, Math.round(t.running[k] * (h - 6)));
			g.fillStyle = threadColor(t.tid);
			g.fillRect(x, h - bh, w, bh);
		}
	}
}

// One request at a time; a newer view asks again when it is answered.
async function loadWindow() {
	if (view.inflight) {
		view.again = true;
		return;
	}
	view.inflight = true;
	const seq = ++view.seq;
	try {
		const w = await getJSON("/api/window?from=" + rt(view.from) + "&to=" + rt(view.to) + "&cols=" + columns());
		if (seq === view.seq) {
			view.win = w;
			for (const [tid, comm] of Object.entries(w.threads))
				if (comm)
					view.names.set(Number(tid), comm);
			draw();
			renderLegend();
		}
	} catch (e) {
		showError("window: " + e.message);
	}
	view.inflight = false;
	if (view.again) {
		view.again = false;
		loadWindow();
	}
}

function setView(from, to) {
	const min = Math.max(columns(), 1);
	if (to - from < min) {
		const mid = (from + to) / 2;
		from = mid - min / 2;
		to = mid + min / 2;
	}
	if (to - from > view.span) {
		from = 0;
		to = view.span;
	}
	if (from < 0) {
		to -= from;
		from = 0;
	}
	if (to > view.span) {
		from -= to - view.span;
		to = view.span;
	}
	view.from = Math.max(0, from);
	view.to = to;
	saveAddress();
	draw();
	loadWindow();
	loadThreads();
}

// The view in the address (#view=FROM-TO[&threads=TID,...], ns from the
// trace's start): a link shows it again.
function saveAddress() {
	history.replaceState(null, "", "#view=" + Math.round(view.from) + "-" + Math.round(view.to) +
		(view.threads.length ? "&threads=" + view.threads.join(",") : ""));
}

// The address's view (else the whole trace) and thread lanes.
function initialView() {
	const m = /^#view=(\d+)-(\d+)(?:&threads=([\d,]+))?$/.exec(location.hash);
	if (m && m[3])
		view.threads = m[3].split(",").filter((x) => x).map(Number);
	if (m && Number(m[1]) < Number(m[2]))
		return [Number(m[1]), Number(m[2])];
	return [0, view.span];
}

function zoom(factor, at) {
	const range = view.to - view.from;
	const t = view.from + at * range;
	setView(t - at * range * factor, t + (1 - at) * range * factor);
}

function pan(fraction) {
	const d = (view.to - view.from) * fraction;
	setView(view.from + d, view.to + d);
}

// ---- Mouse and keys ----

function laneX(ev) {
	const lane = laneCanvases()[0];
	const r = lane.getBoundingClientRect();
	return { x: ev.clientX - r.left, width: r.width };
}

function setupInput() {
	const tl = $("#timeline");
	let drag = null;

	for (const lanes of [$("#lanes"), $("#thread-lanes")]) {
		lanes.addEventListener("wheel", (ev) => {
			ev.preventDefault();
			const { x, width } = laneX(ev);
			zoom(ev.deltaY < 0 ? 1 / 1.5 : 1.5, Math.min(1, Math.max(0, x / width)));
		}, { passive: false });
		lanes.addEventListener("mousedown", (ev) => {
			if (ev.target.tagName !== "CANVAS")
				return;
			const { x, width } = laneX(ev);
			tl.focus();
			drag = { x0: x, width, from: view.from, to: view.to, select: ev.shiftKey,
				cpu: ev.target.classList.contains("lane-canvas") ? Number(ev.target.parentNode.dataset.cpu) : undefined };
			ev.preventDefault();
		});
	}
	window.addEventListener("mousemove", (ev) => {
		hover(ev);
		if (!drag)
			return;
		const { x } = laneX(ev);
		const range = drag.to - drag.from;
		if (drag.select) {
			const a = drag.from + Math.min(drag.x0, x) / drag.width * range;
			const b = drag.from + Math.max(drag.x0, x) / drag.width * range;
			view.sel = { from: Math.max(0, a), to: Math.min(view.span, b) };
			drawSelection();
		} else {
			const d = (drag.x0 - x) / drag.width * range;
			setView(drag.from + d, drag.to + d);
		}
	});
	window.addEventListener("mouseup", (ev) => {
		if (drag && drag.select && view.sel && view.sel.to > view.sel.from)
			selectionChanged();
		// A click (no drag) on a CPU lane: that slice's details.
		else if (drag && !drag.select && Math.abs(laneX(ev).x - drag.x0) < 3 && drag.cpu !== undefined)
			loadSlice(drag.cpu, drag.from + drag.x0 / drag.width * (drag.to - drag.from));
		drag = null;
	});
	tl.addEventListener("keydown", (ev) => {
		const keys = {
			"+": () => zoom(1 / 1.5, 0.5), "=": () => zoom(1 / 1.5, 0.5), "-": () => zoom(1.5, 0.5),
			"ArrowLeft": () => pan(-0.2), "ArrowRight": () => pan(0.2), "0": () => setView(0, view.span),
		};
		if (keys[ev.key]) {
			ev.preventDefault();
			keys[ev.key]();
		}
	});
	window.addEventListener("resize", () => {
		draw();
		loadWindow();
		loadThreads();
	});
	$("#ev-prev").addEventListener("click", () => {
		if (!view.evStack.length)
			return;
		loadEvents(view.evStack.at(-1), view.evStack.slice(0, -1), Math.max(0, view.evOffset - view.evLimit));
	});
	$("#ev-next").addEventListener("click", () => {
		if (!view.evNext)
			return;
		loadEvents(view.evNext, view.evStack.concat([view.evAfter]), view.evOffset + view.evLimit);
	});
}

function hover(ev) {
	const tip = $("#tooltip");
	const c = ev.target;
	const w = view.win;
	if (!w || !(c instanceof HTMLCanvasElement) || !c.classList.contains("lane-canvas")) {
		tip.classList.add("hidden");
		return;
	}
	const r = c.getBoundingClientRect();
	const k = Math.floor((ev.clientX - r.left) / r.width * w.cols);
	const lane = w.cpus.find((x) => x.cpu === Number(c.parentNode.dataset.cpu));
	if (!lane || k < 0 || k >= w.cols) {
		tip.classList.add("hidden");
		return;
	}
	const tid = lane.tid[k];
	let text = "CPU " + lane.cpu + ": " + (tid === null ? "idle" : (w.threads[tid] || view.names.get(tid) || "?") +
		" (tid " + tid + ")") + ", busy " + Math.round(lane.busy[k] * 100) + " %";
	if (lane.irq[k] || lane.softirq[k])
		text += ", " + lane.irq[k] + " IRQ, " + lane.softirq[k] + " softirq";
	if (lane.lost[k])
		text += ", a packet here reports lost events";
	if (inLoss(view.from + k * (view.to - view.from) / w.cols, view.from + (k + 1) * (view.to - view.from) / w.cols))
		text += ", inside a loss window: what is drawn may miss events";
	if (lane.idle && lane.idle[k] !== null)
		text += lane.idle[k] >= 0 ? ", idle state " + lane.idle[k] : ", not idle";
	if (lane.freq && lane.freq[k] !== null)
		text += ", " + Math.round(lane.freq[k] / 1000) + " MHz";
	tip.textContent = text;
	tip.style.left = (ev.clientX + 12) + "px";
	tip.style.top = (ev.clientY + 14) + "px";
	tip.classList.remove("hidden");
}

// ---- A slice: the thread on a CPU at a time, its times and its events (/api/slice, /api/events) ----

async function loadSlice(cpu, at) {
	const box = $("#slice"), info = $("#slice-info tbody"), evs = $("#slice-events tbody");
	const seq = view.sliceSeq = (view.sliceSeq || 0) + 1;
	box.classList.remove("hidden");
	info.textContent = "";
	evs.textContent = "";
	$("#slice-title").textContent = "CPU " + cpu + " at +" + fmtDur(at);
	$("#slice-page").textContent = "…";
	try {
		const s = await getJSON("/api/slice?cpu=" + cpu + "&at=" + rt(Math.min(view.span, Math.max(0, at))));
		if (seq !== view.sliceSeq)
			return;
		if (s.computing || !s.known) {
			$("#slice-page").textContent = s.computing ? "the state is being computed (" + s.percent + " %): click again" :
				"no thread known on CPU " + cpu + " then (before its first switch, or after a lost one)";
			return;
		}
		const from = Number(BigInt(s.from) - view.base), to = Number(BigInt(s.to) - view.base);
		const row = (k, cls, v) => info.append(el("tr", {}, el("th", {}, k), el("td", { class: cls }, v)));
		row("thread", "slice-thread", s.tid === 0 ? "idle (tid 0)" : s.comm + " (tid " + s.tid + ", pid " + s.pid + ")");
		row("CPU", "slice-cpu num", s.cpu);
		row("from", "slice-from", "+" + fmtDur(from) + " (" + s.from + " ns realtime)");
		row("to", "slice-to", "+" + fmtDur(to) + " (" + s.to + " ns realtime)");
		row("duration", "slice-duration", fmtDur(s.duration_ns));
		if (s.spans_loss)
			row("losses", "slice-loss", fmtDur(s.lossy_ns) + " of it inside a loss window: its end or events may be missing");
		box.dataset.tid = s.tid;
		box.dataset.from = s.from;
		box.dataset.to = s.to;
		const p = await getJSON("/api/events?from=" + s.from + "&to=" + s.to + "&cpu=" + s.cpu + "&offset=0&limit=100");
		if (seq !== view.sliceSeq)
			return;
		// The name the thread had then: the switch that began the slice says it (the state keeps a
		// thread's latest, and an exec or a tid used again changes it).
		const sw = p.events.length ? p.events[0] : null;
		if (s.tid > 0 && sw && sw.event === "sched_switch" && sw.fields.next_tid === s.tid &&
		    typeof sw.fields.next_comm === "string")
			$("#slice-info .slice-thread").textContent = sw.fields.next_comm + " (tid " + s.tid + ", pid " + s.pid + ")";
		for (const e of p.events)
			evs.append(el("tr", { class: "event" }, el("td", { class: "time" }, e.time.replace(/^.*T/, "").replace("Z", "")),
				el("td", { class: "event-name" }, e.event), el("td", { class: "fields" }, fieldsText(e.fields))));
		$("#slice-page").textContent = p.events.length ? p.events.length + " events" + (p.more ?
			" shown (more follow: shift-drag over the slice for all of them)" : "") : "no events";
	} catch (e) {
		if (seq === view.sliceSeq)
			$("#slice-page").textContent = e.message;
	}
}

// ---- The selection ----

function selectionChanged() {
	$("#selection").classList.remove("hidden");
	$("#sel-range").textContent = "+" + fmtDur(view.sel.from) + " .. +" + fmtDur(view.sel.to) +
		" (" + fmtDur(view.sel.to - view.sel.from) + ")";
	// Nothing of the last selection's pages stays: its rows, its cursors.
	view.evAfter = null;
	view.evStack = [];
	view.evNext = null;
	view.evOffset = 0;
	$("#events tbody").textContent = "";
	$("#ev-page").textContent = "";
	loadEvents(null, [], 0);
	loadSelStats();
}

function fieldsText(f) {
	return Object.entries(f).map(([k, v]) => k + " = " + (typeof v === "string" ? JSON.stringify(v) : v)).join(", ");
}

// The page after the cursor @after (null: the first page), @stack the cursors of
// the pages before it, @offset its first event's number: the pager's state
// changes only once the page is in (a failed one leaves the shown page's).
async function loadEvents(after, stack, offset) {
	const s = view.sel;
	const seq = ++view.evSeq;
	const next = view.evNext;
	// No paging until this page is in (a click would push a stale cursor).
	view.evNext = null;
	$("#ev-prev").disabled = true;
	$("#ev-next").disabled = true;
	try {
		const p = await getJSON("/api/events?from=" + rt(s.from) + "&to=" + rt(s.to) +
			(after === null ? "&offset=0" : "&after=" + encodeURIComponent(after)) +
			"&limit=" + view.evLimit);
		if (seq !== view.evSeq)
			return;		// a later selection or page asked since
		view.evAfter = after;
		view.evStack = stack;
		view.evOffset = offset;
		view.evNext = p.next;
		const body = $("#events tbody");
		body.textContent = "";
		for (const e of p.events)
			body.append(el("tr", { class: "event" },
				el("td", { class: "time" }, e.time.replace(/^.*T/, "").replace("Z", "")),
				el("td", { class: "num" }, e.cpu), el("td", { class: "event-name" }, e.event),
				el("td", { class: "fields" }, fieldsText(e.fields))));
		$("#ev-page").textContent = p.events.length ? "events " + (view.evOffset + 1) + "–" +
			(view.evOffset + p.events.length) + (p.more ? " (more follow)" : "") : "no events";
		$("#ev-prev").disabled = !view.evStack.length;
		$("#ev-next").disabled = !p.next;
	} catch (e) {
		if (seq !== view.evSeq)
			return;
		// The shown page stays, and so does its pager.
		view.evNext = next;
		$("#ev-prev").disabled = !view.evStack.length;
		$("#ev-next").disabled = !next;
		showError("events: " + e.message);
	}
}

async function loadSelStats() {
	const s = view.sel;
	const box = $("#sel-stats");
	box.textContent = "computing…";
	try {
		renderStats(box, await getJSON("/api/stats?from=" + rt(s.from) + "&to=" + rt(s.to)));
	} catch (e) {
		box.textContent = e.message;
	}
}

// ---- Statistics (the whole trace's and a selection's: evstat --json's shape) ----

function table(caption, cls, heads, rows) {
	const t = el("table", { class: cls }, el("caption", {}, caption));
	t.append(el("tr", {}, ...heads.map(([h, num]) => el("th", { class: num ? "num" : "" }, h))));
	for (const r of rows)
		t.append(el("tr", {}, ...r));
	return t;
}

const td = (cls, v) => el("td", { class: cls }, v);
const us = (ns) => (ns / 1000).toFixed(3);

function latRow(name, l) {
	return [td("lat-name", name), td("num lat-count", l.count), td("num lat-min", l.count ? us(l.min_ns) : "–"),
		td("num lat-avg", l.count ? us(l.total_ns / l.count) : "–"), td("num lat-max", l.count ? us(l.max_ns) : "–"),
		td("num lat-spans-loss", l.spans_loss || 0)];
}

const WORST_KINDS = [["sched", "Worst scheduling latencies (wakeup to switch-in)"], ["syscall", "Worst system calls"],
	["irq", "Worst hard IRQs"], ["softirq", "Worst softirqs"]];

// The engine's worst lists (/api/latency), the whole trace's: when, where, who, and for scheduling, the waker.
function renderWorst(box, lat) {
	for (const [kind, caption] of WORST_KINDS) {
		const rows = (lat.worst[kind] || []).map((w) => {
			const b = Number(BigInt(w.begin) - view.base);
			return [td("num worst-us", us(w.duration_ns)), td("worst-at", "+" + fmtDur(b)), td("num", w.cpu),
				td("worst-thread", (w.comm || "?") + " (" + w.tid + ")"),
				td("worst-what", kind === "sched" ? "prio " + w.prio + ", woken by " +
					(w.waker >= 0 ? (w.waker_comm || "?") + " (" + w.waker + ")" : "an interrupt or unknown") :
					w.what + (kind === "syscall" ? " = " + w.ret : ""))];
		});
		const t = table(caption, "worst worst-" + kind, [["µs", 1], ["at"], ["cpu", 1], ["thread"],
			[kind === "sched" ? "woken" : "what"]], rows.length ? rows : [[td("none", "none")]]);
		t.dataset.kind = kind;
		box.append(t);
	}
}

function renderStats(box, st) {
	box.textContent = "";
	box.append(table("Scheduling latency (µs)", "sched-latency",
		[[""], ["count", 1], ["min", 1], ["avg", 1], ["max", 1], ["spans a loss", 1]],
		[latRow("wakeup → switch-in", st.sched_latency)]));
	const span = Number(st.last_ts) - Number(st.first_ts);
	const threads = st.threads.filter((t) => t.tid !== 0).sort((a, b) => b.cpu_ns - a.cpu_ns || a.tid - b.tid)
		.slice(0, 15);
	box.append(table("Threads by CPU time", "threads",
		[["tid", 1], ["comm"], ["CPU ms", 1], ["% span", 1], ["events", 1]],
		threads.map((t) => [td("num tid", t.tid), td("thread-name", t.comm), td("num cpu-ms", (t.cpu_ns / 1e6).toFixed(3)),
			td("num", span ? (100 * t.cpu_ns / span).toFixed(2) : "0"), td("num", t.events)])));
	const sys = st.syscalls.slice().sort((a, b) => b.count - a.count).slice(0, 15);
	box.append(table("System calls", "syscalls",
		[["syscall"], ["count", 1], ["errors", 1], ["min µs", 1], ["avg µs", 1], ["max µs", 1]],
		sys.map((y) => [td("syscall-name", y.name), td("num count", y.count), td("num", y.errors),
			// No latency where no call returned (exit_group): none rather than 0.
			td("num", y.latency.count ? us(y.latency.min_ns) : "–"),
			td("num", y.latency.count ? us(y.latency.total_ns / y.latency.count) : "–"),
			td("num", y.latency.count ? us(y.latency.max_ns) : "–")])));
	const irqs = st.irqs.slice().sort((a, b) => b.count - a.count);
	box.append(table("Interrupts", "irqs", [["irq", 1], ["name"], ["count", 1], ["avg µs", 1], ["max µs", 1]],
		irqs.map((q) => [td("num", q.irq), td("irq-name", q.name), td("num count", q.count),
			td("num", q.duration.count ? us(q.duration.total_ns / q.duration.count) : "–"),
			td("num", q.duration.count ? us(q.duration.max_ns) : "–")]).concat(st.softirqs.map((q) => [td("num", "soft"),
			td("irq-name", q.name), td("num count", q.count),
			td("num", q.duration.count ? us(q.duration.total_ns / q.duration.count) : "–"),
			td("num", q.duration.count ? us(q.duration.max_ns) : "–")]))));
	const lossy = st.streams.filter((q) => q.discarded || q.lost_packets);
	box.append(table("Losses", "losses", [["stream", 1], ["cpu", 1], ["channel"], ["discarded", 1], ["lost packets", 1]],
		lossy.length ? lossy.map((q) => [td("num", q.id), td("num", q.cpu), td("", q.channel),
			td("num discarded", q.discarded), td("num", q.lost_packets)]) : [[td("none", "none"), td("", ""),
			td("", ""), td("num discarded", 0), td("num", 0)]]));
	box.append(el("p", { class: "stats-total" }, st.events + " events"));
}

function renderLossLine(p, st) {
	p.className = st.complete ? "complete" : "lossy";
	p.textContent = st.complete ? "Complete: no events lost." : "INCOMPLETE: " + st.discarded + " events discarded and " +
		st.lost_packets + " packets lost, in " + st.loss_ranges + " ranges. A latency or duration that spans a loss " +
		"is not a measurement: it is counted apart (\"spans a loss\").";
	p.dataset.discarded = st.discarded;
	p.dataset.packetsLost = st.lost_packets;
	p.dataset.ranges = st.loss_ranges;
}

async function loadStats() {
	try {
		const st = await getJSON("/api/stats");
		if (st.computing) {
			$("#stats-status").textContent = "computing " + st.percent + " %";
			return false;
		}
		const lat = await getJSON("/api/latency?limit=10");
		view.statsReady = true;
		$("#stats-status").textContent = "ready";
		renderLossLine($("#stats-losses"), st);
		renderStats($("#stats-body"), st);
		if (!lat.computing)
			renderWorst($("#stats-body"), lat);
		$("#stats").classList.add("ready");
		return true;
	} catch (e) {
		$("#stats-status").textContent = e.message;
		return true;
	}
}

function followProgress() {
	const es = new EventSource("/api/progress?token=" + encodeURIComponent(TOKEN));
	es.addEventListener("progress", (ev) => {
		if (!view.statsReady)
			$("#stats-status").textContent = "computing " + JSON.parse(ev.data).percent + " %";
	});
	es.addEventListener("ready", () => {
		es.close();
		loadStats();
		// The windows can now start from the state result: no more "incomplete".
		loadWindow();
		loadThreads();
	});
}

// ---- Start ----

async function start() {
	try {
		view.trace = await getJSON("/api/trace");
	} catch (e) {
		showError("trace: " + e.message);
		return;
	}
	const t = view.trace;
	view.base = BigInt(t.first_rt);
	view.span = Number(BigInt(t.last_rt) - view.base);
	$("#trace-path").textContent = t.path;
	$("#trace-span").textContent = t.first + " .. " + t.last + " UTC, " + t.cpus.length + " CPUs" +
		(t.chunks.length ? ", " + t.chunks.length + " chunks" : "") + (t.events !== null ? ", " + t.events + " events" : "");
	if (t.error)
		showError("The trace is damaged: " + t.error + ". What comes before it is shown.");
	document.title = "evview: " + t.path;
	renderLossHeader();
	renderStateLegend();
	buildLanes();
	setupInput();
	const [from, to] = initialView();
	buildThreadLanes();
	setView(from, to);
	if (!(await loadStats()))
		followProgress();
}

start();
