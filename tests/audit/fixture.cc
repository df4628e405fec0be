#include "fixture.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <vector>

#include "audit/evidence_run.h"
#include "contract/contract.h"
#include "core/file.h"
#include "core/sha256.h"
#include "data/locate.h"
#include "evidence/layout.h"
#include "evidence/manifest.h"
#include "evidence/report_file.h"
#include "evidence/run_files.h"
#include "evidence/writer.h"
#include "rules/judge.h"
#include "rules/rule_set.h"
#include "scorer/draw_source.h"
#include "scorer/plan.h"

namespace ratchet {
namespace {

constexpr char kHoldout[] = "fashion";
constexpr int kWrongLabels = 400;  // 96% correct: qualifies at difficulty 1 (5.40%)

RunSeed FixtureSeed() {
  RunSeed seed;
  for (size_t i = 0; i < seed.bytes.size(); ++i) seed.bytes[i] = static_cast<uint8_t>(0xa0 + i);
  return seed;
}

// Located once a process: locating hashes every dataset file.
const std::vector<LocatedDataset>& Located() {
  static const std::vector<LocatedDataset> located = [] {
    Result<DataSearch> search = MakeDataSearch(TestDataFolder());
    if (!search.ok()) return std::vector<LocatedDataset>{};
    Result<std::vector<LocatedDataset>> found = LocateDatasets(*search);
    return found.ok() ? *found : std::vector<LocatedDataset>{};
  }();
  return located;
}

bool Present(const std::vector<LocatedDataset>& located, const std::string& name) {
  for (const LocatedDataset& d : located) {
    if (d.name == name) return d.present;
  }
  return false;
}

}  // namespace

std::optional<std::string> TestDataFolder() {
  const char* source = std::getenv("RATCHET_SOURCE_DIR");
  const std::string folder = std::string(source ? source : ".") + "/data";
  if (!IsDirectory(folder)) return std::nullopt;
  return folder;
}

bool FixtureDatasetsPresent() {
  const std::vector<LocatedDataset> located = Located();
  return Present(located, "mnist") && Present(located, kHoldout);
}

std::string BundledEvidence(const std::string& kind) {
  const std::string root = RATCHET_SOURCE_ROOT;
  const Json baseline = Json::parse(*ReadFile(root + "/baselines/records.json"));
  for (const auto& [id, lane] : baseline["lanes"].items()) {
    if (lane["facts"]["device"]["kind"] == kind) {
      return root + "/baselines/" + lane["reviewed"]["evidence"].get<std::string>();
    }
  }
  return "";
}

namespace {

// The runs of one scoring of `record` (its first, or its rerun), numbered from `first_run`,
// written and judged; their report entries into `runs`, their ranked times into `ranked`.
Status WriteScoring(EvidenceWriter& writer, const RuleSet& rules, const FixtureOptions& options,
                    const FixtureRecord& record, bool rerun, int first_run, int64_t band_bp,
                    std::vector<ReportRun>* runs, std::vector<double>* ranked, bool* qualified,
                    std::set<std::string>* broken) {
  const std::vector<LocatedDataset>& located = Located();
  const RunSeed seed = FixtureSeed();
  const int count = rerun ? record.rerun_runs : record.runs;
  const double base = rerun && record.rerun_ms > 0 ? record.rerun_ms : record.ms;
  const std::string& breaks = rerun ? record.rerun_breaks : record.breaks;
  const bool gpu = options.device_kind == "cuda";
  Json hello = {{"device", options.device_kind}};
  if (options.sandbox == "full") {
    hello["sandbox"] = {{"uid", 65534}, {"no_new_privs", 1}, {"seccomp", 2}};
  }
  if (gpu) {
    hello["device_name"] = options.device_name;
    if (options.device_uuid) hello["uuid"] = *options.device_uuid;
  }
  for (int run = first_run; run < first_run + count; ++run) {
    const std::string folder = RunFolder(record.id, run);
    const RunSeed run_seed = SeedOfRecordRun(seed, record.id, run);
    Result<RunPlan> plan = MakeRunPlan(run_seed, rules, {kHoldout});
    if (!plan.ok()) return plan.status();
    const std::string& source =
        rerun && !record.rerun_source.empty() ? record.rerun_source : record.source;
    RATCHET_RETURN_IF_ERROR(writer.WriteFile(folder + "/submission/ncm.py", source));
    DrawSource draws(run_seed, located);
    Json calls_json = Json::array();
    std::vector<Call> calls;
    bool slowed = false;
    for (size_t i = 0; i < plan->calls.size(); ++i) {
      const PlannedCall& planned = plan->calls[i];
      std::string labels(static_cast<size_t>(rules.draw.test), '\0');
      int64_t correct = rules.draw.test - kWrongLabels;
      // Labels of the draw where its dataset is here (the audit re-counts them), made up where not.
      if (Present(located, planned.dataset)) {
        Result<Draw> draw = draws.Make(planned.dataset, planned.draw_index);
        if (!draw.ok()) return draw.status();
        for (size_t j = 0; j < labels.size(); ++j) {
          const int64_t truth = draw->test_y[j];
          labels[j] =
              static_cast<char>(j < static_cast<size_t>(kWrongLabels) ? (truth + 1) % 10 : truth);
        }
      } else {
        for (size_t j = 0; j < labels.size(); ++j) labels[j] = static_cast<char>((j * 7 + i) % 10);
      }
      double ms = base * (1.0 + 0.0125 * static_cast<double>(i % 4));
      const double overhead_ms = 1.5 + 0.0625 * static_cast<double>(i % 3);
      double parent_ms = ms + overhead_ms + 0.25;
      if (!slowed && planned.dataset == rules.datasets.mnist) {
        if (breaks == kRuleDispersionSlow) {
          ms = 4.0 * base + 20.0;  // the round trip grows with it: no timing rule breaks
          parent_ms = ms + overhead_ms + 0.25;
          slowed = true;
        } else if (breaks == kRuleTimingCall) {
          parent_ms += 50.0 + base;  // time the method did not report
          slowed = true;
        }
      }
      const std::string log =
          i % 2 ? "" : "call " + std::to_string(i + 1) + ": hello from the method\n";
      calls.push_back(Call{planned.dataset, ms, parent_ms, correct, rules.draw.test, overhead_ms});
      calls_json.push_back({{"call", i + 1},
                            {"dataset", planned.dataset},
                            {"draw_index", planned.draw_index},
                            {"warmup_dataset", planned.warmup_dataset},
                            {"warmup_draw_index", planned.warmup_draw_index},
                            {"inputs_sha256", Sha256Hex("inputs " + std::to_string(i))},
                            {"ms", ms},
                            {"parent_ms", parent_ms},
                            {"overhead_ms", overhead_ms},
                            {"correct", correct},
                            {"total", rules.draw.test},
                            {"worker", hello},
                            {"worker_exit", "signal 9"},
                            {"log_bytes", log.size()}});
      const std::string number = CallNumber(static_cast<int>(i + 1));
      RATCHET_RETURN_IF_ERROR(writer.WriteFile(folder + "/labels/" + number + ".u8", labels));
      RATCHET_RETURN_IF_ERROR(writer.WriteFile(folder + "/logs/" + number + ".log", log));
    }
    Result<Judgement> judgement = Judge(calls, band_bp, rules);
    if (!judgement.ok()) return judgement.status();
    std::vector<std::string> judged;
    for (const Problem& problem : judgement->problems) judged.push_back(problem.rule);
    if (judged !=
        (breaks.empty() ? std::vector<std::string>{} : std::vector<std::string>{breaks})) {
      return Status::Internal("the fixture's run " + std::to_string(run) + " of " + record.id +
                              " breaks [" + (judged.empty() ? "" : judged.front()) +
                              (judged.size() > 1 ? ", ..." : "") + "], not [" + breaks + "]");
    }
    RATCHET_RETURN_IF_ERROR(writer.WriteJson(folder + "/calls.json", calls_json));
    JudgeEntry judge;
    judge.qualified = judgement->problems.empty();
    if (judge.qualified) judge.ranked_ms = judgement->ranked_ms;
    judge.summary = judgement->summary;
    judge.floored = judgement->floored;
    for (const Problem& problem : judgement->problems) {
      judge.problems.push_back({problem.rule, problem.message});
    }
    RATCHET_RETURN_IF_ERROR(writer.WriteJson(RunFile(folder, kJudgeFile), JudgeJson(judge)));
    ReportRun report_run;
    report_run.run = run;
    report_run.qualified = judge.qualified;
    if (judge.qualified) report_run.ranked_ms = judgement->ranked_ms;
    report_run.summary = judgement->summary;
    report_run.problems = judge.problems;
    report_run.holdout = plan->holdout;
    report_run.warmup = plan->warmup;
    report_run.single_foreign = plan->single_foreign;
    runs->push_back(report_run);
    if (judge.qualified) {
      ranked->push_back(judgement->ranked_ms);
    } else {
      *qualified = false;
      broken->insert(judged.begin(), judged.end());
    }
  }
  return Status::Ok();
}

}  // namespace

Json FixtureLane(const FixtureOptions& options) {
  Json lane = {{"device", {{"kind", options.device_kind}}}};
  if (options.device_kind == "cuda") lane["device"]["name"] = options.device_name;
  lane["id"] = *LaneId(lane);
  return lane;
}

Json FixtureLocked(const FixtureOptions& options) {
  Result<RuleSet> rules = LoadRuleSet(options.rules);
  Json datasets = Json::object();
  for (const LocatedDataset& d : Located()) {
    // A dataset not here is locked as absent (null), as the scorer locks it; its calls' labels
    // are made up, and the audit finds calls drawn from a dataset the contract does not lock.
    datasets[d.name] = d.present ? Json{{"images_sha256", d.images_sha256},
                                        {"labels_sha256", d.labels_sha256}}
                                 : Json();
  }
  return Json{
      {"rules", {{"id", rules.ok() ? rules->id : ""}, {"sha256", rules.ok() ? rules->sha256 : ""}}},
      {"datasets", datasets},
      {"sandbox", {{"uid", 65534}}}};
}

Status WriteFixture(const std::string& dir, const FixtureOptions& options) {
  Result<RuleSet> rules = LoadRuleSet(options.rules);
  if (!rules.ok()) return rules.status();
  const std::vector<LocatedDataset> located = Located();
  const RunSeed seed = FixtureSeed();
  const int64_t band_bp = 540;
  const bool gpu = options.device_kind == "cuda";

  Result<EvidenceWriter> writer = EvidenceWriter::Begin(dir);
  if (!writer.ok()) return writer.status();
  Json contract = {{"schema", "ratchet.contract/1"},
                   {"locked", FixtureLocked(options)},
                   {"lane", FixtureLane(options)}};
  contract["observed"] = {{"sandbox", options.sandbox == "full" ? "full" : "partial"}};
  if (gpu && options.device_uuid) contract["observed"]["device_uuid"] = *options.device_uuid;
  RATCHET_RETURN_IF_ERROR(writer->WriteJson(kContractFile, contract));
  RATCHET_RETURN_IF_ERROR(writer->CommitSeed(RunSeedSha256(seed)));

  std::map<std::string, ReportRecord> records;
  bool all_qualified = true;
  for (const FixtureRecord& record : options.records) {
    auto entry = [&](bool rerun, int first_run) -> Result<ReportEntry> {
      ReportEntry out;
      out.submission = "ncm.py";
      out.function = "method";
      out.sha256 =
          Sha256Hex(rerun && !record.rerun_source.empty() ? record.rerun_source : record.source);
      out.band_bp = band_bp;
      out.qualified = true;
      std::vector<double> times;
      std::set<std::string> broken;
      RATCHET_RETURN_IF_ERROR(WriteScoring(*writer, *rules, options, record, rerun, first_run,
                                           band_bp, &out.runs, &times, &out.qualified, &broken));
      out.broken.assign(broken.begin(), broken.end());
      if (out.qualified) out.ranked_ms = Median(times);
      return out;
    };
    Result<ReportEntry> first = entry(false, 1);
    if (!first.ok()) return first.status();
    ReportRecord report{*first, std::nullopt};
    if (record.rerun_runs > 0) {
      Result<ReportEntry> rerun = entry(true, 1 + record.runs);
      if (!rerun.ok()) return rerun.status();
      report.rerun = *rerun;
    }
    all_qualified = all_qualified && report.scored().qualified;
    records[record.id] = report;
  }
  if (options.signing_key) writer->SignWith(*options.signing_key);
  if (options.status != kStatusComplete) {
    return writer->Finish(options.status, options.status == kStatusInterrupted ? 130 : 3,
                          "stopped");
  }
  RATCHET_RETURN_IF_ERROR(writer->RevealSeed(HexEncode(seed.view())));
  const Json extra =
      options.ratchet.is_null() ? Json::object() : Json{{"ratchet", options.ratchet}};
  RATCHET_RETURN_IF_ERROR(
      writer->WriteJson(kReportFile, ReportJson(options.sandbox, records, extra)));
  return writer->Finish(kStatusComplete, options.exit_code.value_or(all_qualified ? 0 : 1),
                        all_qualified ? "qualified" : "disqualified");
}

Status Remanifest(const std::string& dir) {
  Result<std::vector<FolderItem>> items = ScanFolder(dir);
  if (!items.ok()) return items.status();
  std::vector<ManifestEntry> entries;
  for (const FolderItem& item : *items) {
    if (item.kind == FolderItem::Kind::kFile)
      entries.push_back({item.path, item.bytes, item.sha256});
  }
  Result<std::string> text = ManifestText(entries);
  if (!text.ok()) return text.status();
  return WriteFileAtomic(dir + "/" + kManifestFile, *text);
}

Status EditJsonAndRemanifest(const std::string& dir, const std::string& relative,
                             const std::function<void(Json&)>& edit) {
  Result<std::string> text = ReadFile(dir + "/" + relative);
  if (!text.ok()) return text.status();
  Result<Json> json = ParseJson(*text, relative);
  if (!json.ok()) return json.status();
  edit(*json);
  Result<std::string> written = EvidenceJsonText(*json, relative);
  if (!written.ok()) return written.status();
  RATCHET_RETURN_IF_ERROR(WriteFileAtomic(dir + "/" + relative, *written));
  return Remanifest(dir);
}

Status CopyWithOneByteChanged(const std::string& source, const std::string& copy,
                              const std::string& relative) {
  std::error_code error;
  std::filesystem::remove_all(copy, error);
  std::filesystem::copy(source, copy, std::filesystem::copy_options::recursive, error);
  if (error) return Status::IOError("copy " + source + " to " + copy, error.value());
  Result<std::string> bytes = ReadFile(copy + "/" + relative);
  if (!bytes.ok()) return bytes.status();
  std::string changed = *bytes;
  if (changed.empty()) {
    changed = "x";
  } else {
    changed[changed.size() / 2] ^= 0x01;
  }
  std::ofstream(copy + "/" + relative, std::ios::binary | std::ios::trunc) << changed;
  return Status::Ok();
}

std::string Findings(const AuditResult& result) {
  std::string text;
  for (const AuditFinding& f : result.findings) {
    text += (f.kind == AuditFinding::Kind::kBreaks ? "finding: " : "note: ") + f.where + ": " +
            f.message + "\n";
  }
  return text;
}

bool HasFinding(const AuditResult& result, const std::string& where, const std::string& words) {
  for (const AuditFinding& f : result.findings) {
    if (f.kind == AuditFinding::Kind::kBreaks && f.where == where &&
        f.message.find(words) != std::string::npos) {
      return true;
    }
  }
  return false;
}

}  // namespace ratchet
