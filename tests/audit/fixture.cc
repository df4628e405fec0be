#include "fixture.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
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

std::vector<LocatedDataset> Located() {
  Result<DataSearch> search = MakeDataSearch(TestDataFolder());
  if (!search.ok()) return {};
  Result<std::vector<LocatedDataset>> located = LocateDatasets(*search);
  return located.ok() ? *located : std::vector<LocatedDataset>{};
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

Status WriteFixture(const std::string& dir, const FixtureOptions& options) {
  Result<RuleSet> rules = LoadRuleSet(options.rules);
  if (!rules.ok()) return rules.status();
  const std::vector<LocatedDataset> located = Located();
  const RunSeed seed = FixtureSeed();
  const int64_t band_bp = 540;

  Json datasets = Json::object();
  for (const LocatedDataset& d : located) {
    datasets[d.name] =
        d.present ? Json{{"images_sha256", d.images_sha256}, {"labels_sha256", d.labels_sha256}}
                  : Json();
  }
  Result<EvidenceWriter> writer = EvidenceWriter::Begin(dir);
  if (!writer.ok()) return writer.status();
  Json lane = {{"device", {{"kind", options.device_kind}}}};
  Result<std::string> lane_id = LaneId(lane);
  if (!lane_id.ok()) return lane_id.status();
  lane["id"] = *lane_id;
  RATCHET_RETURN_IF_ERROR(writer->WriteJson(
      kContractFile,
      Json{{"schema", "ratchet.contract/1"},
           {"locked",
            {{"rules", {{"id", rules->id}, {"sha256", rules->sha256}}}, {"datasets", datasets}}},
           {"lane", lane}}));
  RATCHET_RETURN_IF_ERROR(writer->CommitSeed(RunSeedSha256(seed)));

  const std::string source =
      "def method(train_x, train_y, test_x):\n    return test_x[:, 0].long() % 10\n";
  std::vector<ReportRun> report_runs, rerun_runs;
  std::vector<double> ranked, rerun_ranked;
  for (int run = 1; run <= options.runs + options.rerun_runs; ++run) {
    const bool rerun = run > options.runs;
    const std::string folder = RunFolder(options.record_id, run);
    const RunSeed run_seed = SeedOfRecordRun(seed, options.record_id, run);
    Result<RunPlan> plan = MakeRunPlan(run_seed, *rules, {kHoldout});
    if (!plan.ok()) return plan.status();
    RATCHET_RETURN_IF_ERROR(writer->WriteFile(folder + "/submission/ncm.py", source));
    DrawSource draws(run_seed, located);
    Json calls_json = Json::array();
    std::vector<Call> calls;
    for (size_t i = 0; i < plan->calls.size(); ++i) {
      const PlannedCall& planned = plan->calls[i];
      std::string labels(static_cast<size_t>(rules->draw.test), '\0');
      int64_t correct = rules->draw.test - kWrongLabels;
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
      const double ms = 10.0 + 0.125 * static_cast<double>(i % 4);
      const double overhead_ms = 1.5 + 0.0625 * static_cast<double>(i % 3);
      const double parent_ms = ms + overhead_ms + 0.25;
      const std::string log =
          i % 2 ? "" : "call " + std::to_string(i + 1) + ": hello from the method\n";
      calls.push_back(Call{planned.dataset, ms, parent_ms, correct, rules->draw.test, overhead_ms});
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
                            {"total", rules->draw.test},
                            {"worker", {{"device", options.device_kind}}},
                            {"worker_exit", "signal 9"},
                            {"log_bytes", log.size()}});
      const std::string number = CallNumber(static_cast<int>(i + 1));
      RATCHET_RETURN_IF_ERROR(writer->WriteFile(folder + "/labels/" + number + ".u8", labels));
      RATCHET_RETURN_IF_ERROR(writer->WriteFile(folder + "/logs/" + number + ".log", log));
    }
    Result<Judgement> judgement = Judge(calls, band_bp, *rules);
    if (!judgement.ok()) return judgement.status();
    if (!judgement->problems.empty())
      return Status::Internal("the fixture does not qualify: " + judgement->problems[0].message);
    RATCHET_RETURN_IF_ERROR(writer->WriteJson(folder + "/calls.json", calls_json));
    JudgeEntry judge;
    judge.qualified = true;
    judge.ranked_ms = judgement->ranked_ms;
    judge.summary = judgement->summary;
    judge.floored = judgement->floored;
    RATCHET_RETURN_IF_ERROR(writer->WriteJson(RunFile(folder, kJudgeFile), JudgeJson(judge)));
    ReportRun report_run;
    report_run.run = run;
    report_run.qualified = true;
    report_run.ranked_ms = judgement->ranked_ms;
    report_run.summary = judgement->summary;
    report_run.holdout = plan->holdout;
    report_run.warmup = plan->warmup;
    report_run.single_foreign = plan->single_foreign;
    (rerun ? rerun_runs : report_runs).push_back(report_run);
    (rerun ? rerun_ranked : ranked).push_back(judgement->ranked_ms);
  }
  if (options.status != kStatusComplete) {
    return writer->Finish(options.status, options.status == kStatusInterrupted ? 130 : 3,
                          "stopped");
  }
  RATCHET_RETURN_IF_ERROR(writer->RevealSeed(HexEncode(seed.view())));
  auto entry = [&](const std::vector<ReportRun>& runs, std::vector<double> times) {
    std::sort(times.begin(), times.end());
    const size_t middle = times.size() / 2;
    ReportEntry out;
    out.submission = "ncm.py";
    out.function = "method";
    out.sha256 = Sha256Hex(source);
    out.band_bp = band_bp;
    out.qualified = true;
    out.ranked_ms = times.size() % 2 ? times[middle] : 0.5 * (times[middle - 1] + times[middle]);
    out.runs = runs;
    return out;
  };
  ReportRecord record{entry(report_runs, ranked), std::nullopt};
  if (options.rerun_runs > 0) record.rerun = entry(rerun_runs, rerun_ranked);
  RATCHET_RETURN_IF_ERROR(writer->WriteJson(
      kReportFile, ReportJson(options.sandbox, {{options.record_id, record}}, Json::object())));
  return writer->Finish(kStatusComplete, 0, "qualified");
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
