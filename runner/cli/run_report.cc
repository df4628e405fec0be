#include "cli/run_report.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>

#include "baseline/baseline.h"
#include "baseline/ratchet_report.h"
#include "compare/markdown_text.h"
#include "contract/contract_view.h"
#include "core/file.h"
#include "core/sha256.h"
#include "evidence/fields.h"
#include "evidence/layout.h"
#include "evidence/reader.h"
#include "evidence/report_file.h"
#include "shard/collect.h"
#include "shard/sharded_run.h"

namespace ratchet {
namespace {

std::string Ms(const std::optional<double>& ms) {
  if (!ms) return "";
  char text[32];
  std::snprintf(text, sizeof text, "%.3f", *ms);
  return text;
}

std::string Short(const std::string& hex, size_t n = 12) { return hex.substr(0, n); }

std::string ContractLine(const Json& contract) {
  const ContractView view(contract);
  const ContractField<ToolIdentity> scorer = view.scorer();
  std::string line = "scorer " + (scorer.ok() ? scorer->version : std::string("?")) + " (" +
                     (scorer.ok() ? Short(scorer->source_sha256) : std::string()) +
                     "), rules " + view.rules_id().value_or("?");
  const std::string kind = view.device_kind().value_or("?");
  line += ", lane " + view.lane_id().value_or("?") + " (" +
          (kind == "cpu" ? std::string("CPU") : view.device_name().value_or(kind)) + ")";
  if (view.device_uuid().ok()) line += ", board " + *view.device_uuid();
  line += ", sandbox " + view.sandbox().value_or("?");
  return line;
}

}  // namespace

Result<RunReport> ReadRunReport(const std::string& dir) {
  RunReport out;
  out.path = dir;
  Json report, contract;
  std::map<std::string, std::string> record_lanes;  // a sharded run's: "" for several lanes
  if (IsShardedRun(dir)) {
    Result<ShardedRun> run = ReadShardedRun(dir);
    if (!run.ok()) return Status::BadInput(run.status().message());
    out.status = run->state;
    out.exit_code = run->exit_code;
    report = run->report;
    // run.json keeps the report's records and ratchet part, without report.json's schema.
    if (report.is_object() && !report.contains("schema")) report["schema"] = kReportSchema;
    // Each record is held to the lane its shards were scored on (none, when on several).
    ShardContracts contracts(dir);
    std::map<std::string, std::vector<std::string>> shard_ids;
    for (const ShardedRunShard& s : run->shards) {
      if (s.state == "done") shard_ids[s.shard.record].push_back(s.shard.id);  // scored ones
    }
    for (const auto& [record, ids] : shard_ids) record_lanes[record] = contracts.SharedLane(ids);
    auto planned = contracts.by_lane().find(run->lane);
    if (planned != contracts.by_lane().end()) contract = planned->second;
  } else {
    Result<EvidenceSummary> evidence = ReadEvidence(dir);
    if (!evidence.ok()) return evidence.status();
    out.status = evidence->partial ? "partial" : evidence->status;
    out.exit_code = evidence->exit_code;
    report = evidence->report;
    contract = evidence->contract;
  }
  out.contract_line = contract.is_object() ? ContractLine(contract) : "(no contract)";
  const std::string lane = ContractView(contract).lane_id().value_or("");

  FindingLines findings;
  FieldReader reader(dir + "/" + kReportFile, &findings);
  std::map<std::string, ReportRecord> records;
  if (const Json* object = ReportRecordsObject(report, reader)) {
    for (auto it = object->begin(); it != object->end(); ++it) {
      std::optional<ReportRecord> record =
          ReadReportRecord(it.value(), JoinPath("records", it.key()), reader);
      if (record) records[it.key()] = *record;
    }
  }
  if (!findings.lines().empty()) {
    return Status::BadInput(dir + ": its report cannot be read: " + findings.Joined());
  }

  std::optional<RatchetReport> part;
  std::optional<Baseline> baseline;
  if (report.is_object() && report.contains(kRatchetReportKey)) {
    FindingLines part_findings;
    FieldReader part_reader(dir + "/" + kReportFile, &part_findings);
    part = ReadRatchetReport(report, part_reader);
  }
  if (part) {
    out.baseline = part->baseline;
    out.notes = part->notes;
    std::string sha256;
    Result<Baseline> loaded = LoadBaseline(part->baseline, &sha256);
    if (!loaded.ok()) {
      out.baseline_note = part->baseline + " cannot be read now: expected outcomes not shown";
    } else if (sha256 != part->baseline_sha256) {
      out.baseline_note = part->baseline +
                          " has changed since the run: expected outcomes not shown";
    } else {
      baseline = std::move(*loaded);
    }
    for (const RatchetError& error : part->errors) {
      if (error.record.empty()) out.run_errors.push_back(error);
    }
  } else {
    out.baseline_note = "the run was not held to a baseline (`ratchet score`)";
  }

  for (const auto& [id, record] : records) {
    RunReportRow row;
    row.id = id;
    const ReportEntry& scored = record.scored();
    Expected outcome{scored.status(), scored.broken};
    row.scored = OutcomeText(outcome);
    row.ranked_ms = record.first.ranked_ms;
    if (record.rerun) row.again_ms = record.rerun->ranked_ms;
    row.energy_mj = scored.energy_mj;
    if (baseline) {
      auto found = baseline->records.find(id);
      if (found != baseline->records.end()) {
        const BaselineRecord& reviewed = found->second;
        row.expected = reviewed.expected ? OutcomeText(*reviewed.expected)
                       : reviewed.claimed ? "claimed " + OutcomeText(reviewed.claimed->outcome)
                                          : "(unreviewed)";
        auto held_to = record_lanes.find(id);
        auto timing =
            reviewed.timing.find(held_to == record_lanes.end() ? lane : held_to->second);
        LaneTiming tolerance;  // the default, for a claimed time
        if (timing != reviewed.timing.end()) {
          row.reviewed_ms = timing->second.ranked_ms;
          tolerance = timing->second;
        } else if (!reviewed.expected && reviewed.claimed) {
          row.reviewed_ms = reviewed.claimed->ranked_ms;
        }
        if (row.reviewed_ms) {
          row.tolerance_ms =
              std::max(tolerance.relative * *row.reviewed_ms, tolerance.absolute_ms);
        }
      }
    }
    if (part) {
      for (const RatchetError& error : part->errors) {
        if (error.record == id) row.codes.push_back(error.code);
      }
      for (const std::string& note : part->notes) {
        if (note.rfind("claim-reproduced: " + id + ":", 0) == 0) row.codes.push_back("claim-reproduced");
      }
    }
    out.rows.push_back(row);
  }
  // The differences first (a record with an error), each group by id.
  std::stable_sort(out.rows.begin(), out.rows.end(), [](const RunReportRow& a, const RunReportRow& b) {
    const bool a_error = !a.codes.empty() && a.codes != std::vector<std::string>{"claim-reproduced"};
    const bool b_error = !b.codes.empty() && b.codes != std::vector<std::string>{"claim-reproduced"};
    return a_error > b_error;
  });
  return out;
}

std::string MarkdownReport(const RunReport& report) {
  size_t differing = report.run_errors.size();
  for (const RunReportRow& row : report.rows) {
    for (const std::string& code : row.codes) differing += code != "claim-reproduced";
  }
  std::string md = "### ratchet: " + std::string(differing == 0 ? "as the baseline expects"
                                                                  : std::to_string(differing) +
                                                                        " difference(s)") +
                   "\n\n";
  md += MarkdownText(report.path) + ": " + MarkdownText(report.status) + ", exit " +
        std::to_string(report.exit_code) + "  \n";
  md += "Contract: " + MarkdownText(report.contract_line) + "  \n";
  if (!report.baseline.empty()) md += "Baseline: " + MarkdownText(report.baseline) + "  \n";
  if (!report.baseline_note.empty()) md += MarkdownText(report.baseline_note) + "  \n";
  md += "\n";
  if (!report.run_errors.empty()) {
    md += "**Run errors**\n\n";
    for (const RatchetError& error : report.run_errors) {
      md += "- " + MarkdownText(error.code) + ": " + MarkdownText(error.message) + "\n";
    }
    md += "\n";
  }
  md += "| record | expected | scored | ranked ms | reviewed ms | energy mJ/call | codes |\n"
        "| --- | --- | --- | ---: | ---: | ---: | --- |\n";
  for (const RunReportRow& row : report.rows) {
    std::string ms = Ms(row.ranked_ms);
    if (row.again_ms) ms += ", again " + Ms(row.again_ms);
    std::string codes;
    for (const std::string& code : row.codes)
      codes += (codes.empty() ? "" : ", ") + MarkdownCode(code);
    md += "| " + MarkdownText(row.id) + " | " + MarkdownText(row.expected) + " | " +
          MarkdownText(row.scored) + " | " + ms + " | " + Ms(row.reviewed_ms) + " | " +
          Ms(row.energy_mj) + " | " + codes + " |\n";
  }
  if (!report.notes.empty()) {
    md += "\n<details><summary>Notes (" + std::to_string(report.notes.size()) +
          ")</summary>\n\n";
    for (const std::string& note : report.notes) md += "- " + MarkdownText(note) + "\n";
    md += "\n</details>\n";
  }
  return md;
}

}  // namespace ratchet
