// report.json's typed writer and strict reader: what the scorer writes reads back field for
// field (a refusal's run, a rerun and the tool's own fields included), and an entry with a field
// missing or of the wrong type is refused with a finding that names the field.
#include "evidence/report_file.h"

#include <gtest/gtest.h>

namespace ratchet {
namespace {

struct Found : FieldFindings {
  void Breaks(std::string where, std::string message) override {
    breaks.push_back(where + " -- " + message);
  }
  void Note(std::string, std::string) override {}
  std::vector<std::string> breaks;
};

ReportRun PlannedRun(int64_t number, bool qualified) {
  ReportRun run;
  run.run = number;
  run.qualified = qualified;
  if (!qualified) run.problems.push_back({"accuracy", "MNIST at 91.00% > 5.40% error"});
  if (qualified) run.ranked_ms = 0.1 + 0.2;  // a double that must come back to the bit
  run.summary = "MNIST 84.72% correct";
  run.holdout = "fashion";
  run.warmup = "fashion";
  run.single_foreign = true;
  if (qualified) run.energy = Json{{"mj_per_call", 12.5}, {"board", "H200"}};
  return run;
}

ReportEntry SomeEntry() {
  ReportEntry entry;
  entry.submission = "ncm.py";
  entry.function = "method";
  entry.sha256 = std::string(64, 'c');
  entry.band_bp = 540;
  entry.qualified = false;
  entry.broken = {"accuracy"};
  entry.energy_runs_measured = 1;
  entry.review_flags = {"blob"};
  entry.runs = {PlannedRun(1, true), PlannedRun(2, false)};
  return entry;
}

TEST(ReportFile, WhatIsWrittenReadsBackFieldForField) {
  ReportRecord record{SomeEntry(), SomeEntry()};
  record.rerun->qualified = true;
  record.rerun->broken.clear();
  record.rerun->ranked_ms = 4.5;
  record.rerun->energy_mj = 12.5;
  record.rerun->runs = {PlannedRun(3, true)};
  ReportRun refused;
  refused.run = 1;
  refused.refused = true;
  refused.problems.push_back({"source", "the method file does not parse"});
  ReportRecord refusal{SomeEntry(), std::nullopt};
  refusal.first.runs = {refused};
  const Json report =
      ReportJson("full", {{"ncm", record}, {"bad", refusal}}, Json{{"ratchet", {{"errors", 1}}}});
  EXPECT_EQ(report["schema"], kReportSchema);
  EXPECT_EQ(report["ratchet"], Json({{"errors", 1}}));
  // A refusal's run has no plan, time or summary.
  EXPECT_EQ(
      report["records"]["bad"]["runs"][0],
      Json({{"run", 1},
            {"qualified", false},
            {"problems", {{{"rule", "source"}, {"message", "the method file does not parse"}}}}}));

  Found found;
  FieldReader reader("report.json", &found);
  const Json* records = ReportRecordsObject(report, reader);
  ASSERT_NE(records, nullptr);
  std::optional<ReportRecord> back = ReadReportRecord((*records)["ncm"], "records.ncm", reader);
  std::optional<ReportRecord> back_refusal =
      ReadReportRecord((*records)["bad"], "records.bad", reader);
  ASSERT_TRUE(back && back_refusal) << ::testing::PrintToString(found.breaks);
  EXPECT_TRUE(found.breaks.empty());
  EXPECT_EQ(ReportRecordJson(*back), ReportRecordJson(record));
  EXPECT_EQ(ReportRecordJson(*back_refusal), ReportRecordJson(refusal));
  EXPECT_EQ(back->first.runs[0].ranked_ms, 0.1 + 0.2);
  EXPECT_TRUE(back_refusal->first.runs[0].refused);
  EXPECT_FALSE(back->first.runs[1].refused);
  EXPECT_EQ(&back->scored(), &*back->rerun);
  EXPECT_EQ(back->scored().status(), std::string("qualified"));
}

TEST(ReportFile, AnEntryWithAFieldMissingOrMistypedIsRefusedNamingTheField) {
  struct Case {
    std::string what;
    void (*damage)(Json&);
    std::string finding;
  };
  const std::vector<Case> cases = {
      {"status", [](Json& e) { e["outcome"]["status"] = "won"; },
       "report.json: records.x.outcome.status -- \"won\", expected \"qualified\" or "
       "\"disqualified\""},
      {"broken", [](Json& e) { e["outcome"]["broken"][0] = 3; },
       "report.json: records.x.outcome.broken[0] -- expected a string, found an integer"},
      {"ranked", [](Json& e) { e["ranked_ms"] = "fast"; },
       "report.json: records.x.ranked_ms -- expected a number or null, found a string"},
      {"energy", [](Json& e) { e["energy"].erase("runs_measured"); },
       "report.json: records.x.energy.runs_measured -- missing"},
      {"a run's plan", [](Json& e) { e["runs"][1].erase("warmup"); },
       "report.json: records.x.runs[1].warmup -- missing"},
      {"a run's problem", [](Json& e) { e["runs"][1]["problems"][0].erase("rule"); },
       "report.json: records.x.runs[1].problems[0].rule -- missing"},
      {"a run's energy", [](Json& e) { e["runs"][0]["energy"] = 3; },
       "report.json: records.x.runs[0].energy -- expected an object, found an integer"},
      {"the rerun", [](Json& e) { e["rerun"] = "again"; },
       "report.json: records.x.rerun -- expected an object, found a string"},
  };
  for (const Case& c : cases) {
    Json entry = ReportEntryJson(SomeEntry());
    c.damage(entry);
    Found found;
    FieldReader reader("report.json", &found);
    EXPECT_FALSE(ReadReportRecord(entry, "records.x", reader)) << c.what;
    EXPECT_EQ(found.breaks, std::vector<std::string>{c.finding}) << c.what;
  }
}

TEST(ReportFile, TheTopNamesItsSchemaAndRecords) {
  Found found;
  FieldReader reader("report.json", &found);
  EXPECT_EQ(ReportRecordsObject(Json{{"schema", "ratchet.report/2"}, {"records", Json::object()}},
                                reader),
            nullptr);
  EXPECT_EQ(
      ReportRecordsObject(Json{{"schema", kReportSchema}, {"records", Json::array()}}, reader),
      nullptr);
  EXPECT_EQ(ReportRecordsObject(Json::array(), reader), nullptr);
  EXPECT_EQ(found.breaks,
            (std::vector<std::string>{
                "report.json: schema -- \"ratchet.report/2\"; this ratchet reads ratchet.report/1",
                "report.json: records -- expected an object, found an array",
                "report.json -- expected an object, found an array"}));
}

}  // namespace
}  // namespace ratchet
