#include "cli/html_report.h"

#include <dirent.h>

#include <algorithm>
#include <map>

#include "baseline/baseline.h"
#include "cli/run_report.h"
#include "compare/html_text.h"
#include "core/file.h"
#include "energy/energy_file.h"
#include "evidence/fields.h"
#include "evidence/layout.h"
#include "evidence/run_files.h"
#include "shard/sharded_run.h"

namespace ratchet {
namespace {

// The names in `folder` that start with `prefix`, sorted.
std::vector<std::string> Entries(const std::string& folder, const std::string& prefix = "") {
  std::vector<std::string> names;
  if (DIR* dir = opendir(folder.c_str())) {
    while (dirent* entry = readdir(dir)) {
      const std::string name = entry->d_name;
      if (name == "." || name == "..") continue;
      if (name.rfind(prefix, 0) == 0) names.push_back(name);
    }
    closedir(dir);
  }
  std::sort(names.begin(), names.end());
  return names;
}

// The evidence folders that hold a run's records: the directory itself, or a sharded run's
// shards.
std::vector<std::string> RecordRoots(const std::string& dir) {
  if (!IsShardedRun(dir)) return {dir};
  std::vector<std::string> roots;
  for (const std::string& shard : Entries(dir + "/shards")) roots.push_back(dir + "/shards/" + shard);
  return roots;
}

// Each run of each record under `root`, into `records`.
void ReadRuns(const std::string& root, Json* records) {
  for (const std::string& id : Entries(root + "/" + kRecordsFolder)) {
    const std::string record_dir = root + "/" + kRecordsFolder + "/" + id;
    for (const std::string& run_name : Entries(record_dir, "run-")) {
      const std::string folder = record_dir + "/" + run_name;
      const int run = std::atoi(run_name.c_str() + 4);
      Json& record = (*records)[id];
      if (!record.contains("runs")) record["runs"] = Json::array();
      if (!record.contains("energy")) record["energy"] = Json::array();
      Result<std::string> text = ReadFile(RunFile(folder, kCallsFile), 64u << 20);
      if (text.ok()) {
        Result<Json> json = ParseJson(*text, kCallsFile);
        FindingLines findings;
        FieldReader reader(folder + "/" + kCallsFile, &findings);
        std::optional<std::vector<CallEntry>> calls =
            json.ok() ? ReadCalls(*json, reader) : std::nullopt;
        if (calls) {
          Json points = Json::array();
          for (const CallEntry& call : *calls) {
            points.push_back({{"call", call.call},
                              {"dataset", call.dataset},
                              {"ms", call.ms},
                              {"unexplained_ms", call.parent_ms - call.ms - call.overhead_ms}});
          }
          record["runs"].push_back({{"run", run}, {"calls", points}});
        }
      }
      Result<std::string> energy = ReadFile(RunFile(folder, kEnergyFile), 16u << 20);
      if (!energy.ok()) continue;
      Result<Json> json = ParseJson(*energy, kEnergyFile);
      if (!json.ok()) continue;
      // Read as energy.json's owner reads it; a damaged file's windows are left out.
      FindingLines damaged;
      FieldReader energy_reader(kEnergyFile, &damaged);
      std::optional<std::vector<EnergyWindow>> measured =
          IsMeasuredColumn(*json) ? ReadEnergyWindows(*json, "", energy_reader) : std::nullopt;
      if (!measured) continue;
      Json windows = Json::array();
      for (const EnergyWindow& window : *measured) {
        if (window.seconds <= 0) continue;
        windows.push_back({{"name", window.name},
                           {"watts", window.joules / window.seconds},
                           {"seconds", window.seconds}});
      }
      if (!windows.empty()) record["energy"].push_back({{"run", run}, {"windows", windows}});
    }
  }
}

}  // namespace

Result<Json> HtmlReportData(const std::vector<std::string>& dirs) {
  Json runs = Json::array();
  for (const std::string& dir : dirs) {
    Result<RunReport> report = ReadRunReport(dir);
    if (!report.ok()) return report.status();
    Json records = Json::object();
    for (const std::string& root : RecordRoots(dir)) ReadRuns(root, &records);
    for (const RunReportRow& row : report->rows) {
      Json& record = records[row.id];
      record["scored"] = row.scored;
      record["expected"] = row.expected;
      const std::optional<double> ranked = row.again_ms ? row.again_ms : row.ranked_ms;
      record["ranked_ms"] = ranked ? Json(*ranked) : Json();
      record["reviewed_ms"] = row.reviewed_ms ? Json(*row.reviewed_ms) : Json();
      if (row.reviewed_ms) {
        // The record's own tolerance either side of its reviewed time.
        record["band"] = {*row.reviewed_ms - row.tolerance_ms, *row.reviewed_ms + row.tolerance_ms};
      }
      if (!record.contains("runs")) record["runs"] = Json::array();
      if (!record.contains("energy")) record["energy"] = Json::array();
    }
    runs.push_back({{"path", dir},
                    {"status", report->status},
                    {"contract", report->contract_line},
                    {"records", records}});
  }
  return Json{{"runs", runs}};
}

namespace {

// The page's script: draws every plot from the data as SVG, and names each with data-plot.
constexpr char kScript[] = R"JS(
"use strict";
const data = JSON.parse(document.getElementById("data").textContent);
const NS = "http://www.w3.org/2000/svg";
const W = 640, H = 220, L = 56, R = 12, T = 14, B = 30;
const colours = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#17becf"];
const byRecord = Object.create(null);  // record ids such as "constructor" are plain keys
function el(name, attrs, parent) {
  const e = document.createElementNS(NS, name);
  for (const k in attrs) e.setAttribute(k, attrs[k]);
  if (parent) parent.appendChild(e);
  return e;
}
// Spreading a long array into Math.min's arguments throws past the engine's argument limit.
const least = v => v.reduce((a, b) => Math.min(a, b), Infinity);
const most = v => v.reduce((a, b) => Math.max(a, b), -Infinity);
function text(parent, x, y, s, anchor) {
  const t = el("text", {x: x, y: y, "font-size": 11, "text-anchor": anchor || "start"}, parent);
  t.textContent = s;
  return t;
}
// A plot of series [{name, points: [[x, y]]}] with an optional band [lo, hi]; bars when `bars`.
function plot(container, id, title, series, xlabel, ylabel, band, bars) {
  const box = document.createElement("figure");
  const caption = document.createElement("figcaption");
  caption.textContent = title;
  box.appendChild(caption);
  const svg = el("svg", {width: W, height: H, viewBox: "0 0 " + W + " " + H, "data-plot": id});
  box.appendChild(svg);
  container.appendChild(box);
  const all = series.flatMap(s => s.points);
  if (all.length === 0) throw new Error("plot " + id + " has no points");
  let ys = all.map(p => p[1]);
  if (band) ys = ys.concat(band);
  let lo = Math.min(0, least(ys)), hi = most(ys);
  if (hi === lo) hi = lo + 1;
  const xs = all.map(p => p[0]);
  const x0 = least(xs), x1 = most(xs) === x0 ? x0 + 1 : most(xs);
  const sx = x => L + (x - x0) / (x1 - x0) * (W - L - R);
  const sy = y => H - B - (y - lo) / (hi - lo) * (H - T - B);
  el("line", {x1: L, y1: H - B, x2: W - R, y2: H - B, stroke: "#555"}, svg);
  el("line", {x1: L, y1: T, x2: L, y2: H - B, stroke: "#555"}, svg);
  for (const v of [lo, (lo + hi) / 2, hi]) text(svg, L - 4, sy(v) + 4, v.toPrecision(3), "end");
  text(svg, (L + W - R) / 2, H - 6, xlabel, "middle");
  text(svg, 4, T - 2, ylabel);
  if (band) {
    el("rect", {x: L, y: sy(band[1]), width: W - L - R, height: Math.max(1, sy(band[0]) - sy(band[1])),
                fill: "#2ca02c", "fill-opacity": 0.15, "data-band": "reviewed"}, svg);
  }
  series.forEach((s, i) => {
    const colour = colours[i % colours.length];
    if (bars) {
      const width = (W - L - R) / Math.max(1, s.points.length) * 0.7;
      s.points.forEach((p, j) => {
        const x = L + (j + 0.15) * (W - L - R) / s.points.length;
        el("rect", {x: x, y: sy(p[1]), width: width, height: sy(lo) - sy(p[1]), fill: colour}, svg);
        text(svg, x + width / 2, H - B + 12, p[2] || "", "middle");
      });
    } else {
      el("polyline", {points: s.points.map(p => sx(p[0]) + "," + sy(p[1])).join(" "), fill: "none",
                      stroke: colour}, svg);
      for (const p of s.points) el("circle", {cx: sx(p[0]), cy: sy(p[1]), r: 2.5, fill: colour}, svg);
    }
    text(svg, W - R - 120, T + 12 * (i + 1), s.name).setAttribute("fill", colour);
  });
}
// A record: its heading, and its plots; a run with no timed call (a submission refused before
// its calls, a run stopped early) has no points to plot, and the record says so instead.
function drawRecord(part, r, id, rec) {
  const h = document.createElement("h3");
  h.textContent = id + ": " + (rec.scored === undefined ? "(not in the report)" : rec.scored) +
      (rec.expected ? " (expected " + rec.expected + ")" : "");
  part.appendChild(h);
  if (typeof rec.ranked_ms === "number") (byRecord[id] = byRecord[id] || []).push([r + 1, rec.ranked_ms]);
  const runs = (rec.runs || []).filter(x => x.calls.length > 0);
  if (runs.length === 0) {
    const p = document.createElement("p");
    p.textContent = "no timed call to plot";
    part.appendChild(p);
  } else {
    plot(part, "calls:" + r + ":" + id, id + ": each call's time, every run" +
         (rec.band ? " (green: the reviewed time's tolerance)" : ""),
         runs.map(x => ({name: "run " + x.run, points: x.calls.map(c => [c.call, c.ms])})),
         "call", "ms", rec.band || null, false);
    plot(part, "unexplained:" + r + ":" + id, id + ": each call's unexplained time " +
         "(the scorer's clock less the call and the calibrated round trip)",
         runs.map(x => ({name: "run " + x.run, points: x.calls.map(c => [c.call, c.unexplained_ms])})),
         "call", "ms", null, false);
  }
  for (const e of rec.energy || []) {
    plot(part, "energy:" + r + ":" + id + ":" + e.run, id + ": energy windows of run " + e.run +
         " (mean power)", [{name: "W", points: e.windows.map((w, j) => [j, w.watts, w.name])}],
         "window", "W", null, true);
  }
}
const main = document.getElementById("plots");
// Evidence that does not stand is said first, each finding as text: what follows of it is what
// its files say, not what its calls give.
for (const failed of data.not_standing || []) {
  const section = document.createElement("section");
  section.setAttribute("data-not-standing", failed.path);
  const heading = document.createElement("h2");
  heading.textContent = "this evidence does not stand: " + failed.path;
  section.appendChild(heading);
  const list = document.createElement("ul");
  for (const finding of failed.findings) {
    const item = document.createElement("li");
    item.textContent = finding;
    list.appendChild(item);
  }
  section.appendChild(list);
  main.appendChild(section);
}
data.runs.forEach((run, r) => {
  const section = document.createElement("section");
  const heading = document.createElement("h2");
  heading.textContent = run.path + " (" + run.status + ")";
  section.appendChild(heading);
  const line = document.createElement("p");
  line.textContent = run.contract;
  section.appendChild(line);
  main.appendChild(section);
  for (const id of Object.keys(run.records).sort()) {
    const rec = run.records[id];
    const part = document.createElement("div");
    part.setAttribute("data-record", r + ":" + id);
    section.appendChild(part);
    // One record the script cannot draw says so on the page (and in the console), and the
    // records after it are still drawn.
    try {
      drawRecord(part, r, id, rec);
    } catch (e) {
      const p = document.createElement("p");
      p.textContent = "this record could not be drawn: " + e;
      part.appendChild(p);
      console.error("record " + id + ": " + e);
    }
  }
});
const over = Object.keys(byRecord).filter(id => byRecord[id].length > 1).sort();
if (over.length > 0) {
  const section = document.createElement("section");
  const heading = document.createElement("h2");
  heading.textContent = "Ranked time across the evidence, in the order given";
  section.appendChild(heading);
  main.insertBefore(section, main.firstChild);
  for (const id of over) {
    plot(section, "ranked:" + id, id + ": ranked time in each evidence directory",
         [{name: id, points: byRecord[id]}], "evidence (1 = the first given)", "ms", null, false);
  }
}
document.body.setAttribute("data-plots", document.querySelectorAll("svg[data-plot]").length);
)JS";

}  // namespace

std::string HtmlReport(const Json& data) {
  return "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
         "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
         "script-src 'unsafe-inline'; style-src 'unsafe-inline'\">\n"
         "<title>ratchet report</title>\n<style>body{font-family:sans-serif;margin:1.5em;"
         "max-width:70em}figure{margin:0.5em 0}figcaption{font-size:0.9em;color:#333}"
         "h2{border-bottom:1px solid #ccc}</style>\n</head><body>\n<h1>ratchet report</h1>\n"
         "<main id=\"plots\"></main>\n<script type=\"application/json\" id=\"data\">" +
         HtmlScriptJson(data) + "</script>\n<script>" + kScript + "</script>\n</body></html>\n";
}

}  // namespace ratchet
