// `ratchet import`: a published claim taken into a baseline. Each claim (a reference scorer's
// --json record) is audited as `ratchet audit` does, against the submission given; claims that
// stand, name this submission and agree on one band, outcome and board become the record's
// `claimed` outcome, which `ratchet run --baseline` then tries to reproduce.
#include <algorithm>
#include <filesystem>
#include <ostream>
#include <set>

#include "audit/audit.h"
#include "baseline/baseline.h"
#include "baseline/baseline_lock.h"
#include "baseline/input_file.h"
#include "cli/commands.h"
#include "compare/terminal_text.h"
#include "cli/score_args.h"
#include "core/args.h"
#include "core/exit_codes.h"
#include "core/file.h"
#include "core/sha256.h"
#include "core/status.h"
#include "rules/judge.h"

namespace ratchet {

const char kImportUsage[] =
    "usage: ratchet import --baseline FILE --record ID --submission FILE[:function]\n"
    "                      --claim RECORD.json [--claim RECORD.json ...] [--rules ID|FILE]\n"
    "\n"
    "Takes a published claim into the baseline FILE as the record ID: one to three --json\n"
    "records of the reference scorer, made by scoring the submission FILE. Each claim is\n"
    "audited as `ratchet audit --submission FILE` does; one that does not stand, that is not an\n"
    "official claim (no sandbox, a CPU run), or that names another submission (its\n"
    "source_sha256) is refused with the audit's findings. The claims must agree on one band,\n"
    "one outcome and one board. The record is added as claimed: the claimed outcome, band,\n"
    "ranked time (the median of the claims') and board, the scorer version that made them and\n"
    "each claim's sha256. It is not reviewed: the next `ratchet run --baseline FILE` scores it\n"
    "and reports claim-reproduced or claim-not-reproduced (docs/baseline.md), failing with\n"
    "record-unreviewed until `ratchet promote` reviews it like any record. Nothing is written\n"
    "unless every claim is taken.\n"
    "\n"
    "  --baseline FILE       the baseline to add the record to (written atomically)\n"
    "  --record ID           the new record's id (1-100 characters of A-Z a-z 0-9 . _ -)\n"
    "  --submission FILE[:function]\n"
    "                        the method file the claims scored; its path is kept relative to\n"
    "                        the baseline's folder. The function defaults to the claims'\n"
    "  --claim RECORD.json   a claim (repeatable, 1 to 3)\n"
    "  --rules ID|FILE       the rule set that judges the claims (default: the one compiled in\n"
    "                        whose version the claims name)\n"
    "\n"
    "Exit codes: 0 imported; 1 a claim refused (its findings printed); 2 bad usage or input\n";

namespace {

std::string RelativeTo(const std::string& folder, const std::string& path) {
  std::error_code error;
  const std::filesystem::path absolute = std::filesystem::absolute(path, error);
  const std::filesystem::path base = std::filesystem::absolute(folder.empty() ? "." : folder, error);
  const std::filesystem::path relative = absolute.lexically_normal().lexically_relative(
      base.lexically_normal());
  if (error || relative.empty() || *relative.begin() == "..") return absolute.lexically_normal();
  return relative.string();
}

}  // namespace

int RunImport(CommandContext& context) {
  auto fail = [&](const Status& status) { return ReportError(context.err, "import", status); };
  auto refuse = [&](const std::string& message) {
    context.err << "ratchet import: refused: " << message << "\nnothing was written\n";
    return static_cast<int>(kExitFinding);
  };
  Result<Args> args = Args::Parse(context.argv, {{"baseline", true},
                                                 {"record", true},
                                                 {"submission", true},
                                                 {"claim", true, true},
                                                 {"rules", true}});
  if (!args.ok()) return fail(args.status());
  if (!args->positional().empty()) {
    return fail(Status::Usage("unexpected argument '" + args->positional().front() + "'"));
  }
  for (const char* flag : {"baseline", "record", "submission"}) {
    if (!args->Has(flag)) {
      return fail(Status::Usage(std::string("import needs --") + flag +
                                (std::string(flag) == "submission" ? " FILE[:function]" : " ...")));
    }
  }
  const std::vector<std::string> claims = args->GetAll("claim");
  if (claims.empty() || claims.size() > 3) {
    return fail(Status::Usage("give one to three claims: --claim RECORD.json"));
  }
  const std::string baseline_path = *args->Get("baseline");
  const std::string id = *args->Get("record");
  if (Status valid = CheckRecordId(id, "--record"); !valid.ok()) return fail(valid);
  const std::string spec = *args->Get("submission");
  std::string file = spec, function;
  if (size_t colon = spec.rfind(':'); colon != std::string::npos && colon > 0 &&
                                      spec.find('/', colon) == std::string::npos) {
    file = spec.substr(0, colon);
    function = spec.substr(colon + 1);
  }
  if (!std::filesystem::exists(file)) return fail(Status::BadInput("no method file at " + file));
  Result<std::string> bytes = ReadInputFile(file, "--submission", kMaxMethodFile);
  if (!bytes.ok()) return fail(bytes.status());
  const std::string sha256 = Sha256Hex(*bytes);

  Result<BaselineLock> lock = BaselineLock::Acquire(baseline_path, "import", context.err);
  if (!lock.ok()) return fail(lock.status());
  Result<Baseline> baseline = LoadBaseline(baseline_path);
  if (!baseline.ok()) return fail(baseline.status());
  if (baseline->records.count(id)) {
    return fail(Status::BadInput(baseline_path + " has a record \"" + id +
                                 "\" already: import under a new id"));
  }

  // Each claim audited against this submission; every one must stand and be official.
  std::vector<ReferenceClaim> taken;
  std::vector<ClaimFile> files;
  for (const std::string& claim : claims) {
    AuditOptions options;
    options.submission = file;
    options.rules_path = args->Get("rules");
    Result<AuditResult> audit = Audit(claim, options);
    if (!audit.ok()) return fail(audit.status());
    if (!audit->nothing_to_audit.empty()) {
      return refuse(claim + ": " + audit->nothing_to_audit);
    }
    if (audit->verdict() != AuditVerdict::kStands || !audit->reference) {
      std::string findings;
      for (const AuditFinding& finding : audit->findings) {
        if (finding.kind == AuditFinding::Kind::kBreaks) {
          findings += "\n  " + finding.where + ": " + finding.message;
        }
      }
      return refuse(claim + " does not stand under `ratchet audit --submission " + file + "`:" +
                    (findings.empty() ? " it is not a reference scorer's record" : findings));
    }
    if (!audit->unofficial.empty()) {
      std::string why;
      for (const std::string& reason : audit->unofficial) why += (why.empty() ? "" : "; ") + reason;
      return refuse(claim + " stands but is not an official claim (" + why +
                    "): only official claims are held to");
    }
    if (audit->reference->device.empty() || !audit->reference->sandboxed) {
      return refuse(claim + " does not say " +
                    (audit->reference->device.empty() ? "which board it was scored on"
                                                      : "that it ran in the sandbox") +
                    ": only official claims are held to");
    }
    // What the baseline keeps of a claim's words is short and printable, as a board's name and a
    // scorer's version are: a claim's longer or stranger text is not written into a baseline.
    for (const auto& [field, text] : {std::pair<const char*, const std::string&>{
                                          "device", audit->reference->device},
                                      {"version", audit->reference->version}}) {
      if (text.size() > 256 || !PrintableAscii(text)) {
        return fail(Status::BadInput(claim + ": its " + field + " (" + Excerpt(text, 60) +
                                     ") is not a board's name or a scorer's version: at most "
                                     "256 printable ASCII characters"));
      }
    }
    if (audit->reference->source_sha256.empty()) {
      return refuse(claim + " names no submission (no source_sha256): it cannot be tied to " +
                    file);
    }
    taken.push_back(*audit->reference);
    Result<std::string> claim_bytes = ReadFile(claim, 64u << 20);
    if (!claim_bytes.ok()) return fail(claim_bytes.status());
    const std::string claim_sha256 = Sha256Hex(*claim_bytes);
    for (const ClaimFile& earlier : files) {
      if (earlier.sha256 == claim_sha256) {
        return refuse(claim + " is the claim " + earlier.path + " again: give each claim once");
      }
    }
    files.push_back({RelativeTo(DirName(baseline_path), claim), claim_sha256});
  }
  const ReferenceClaim& first = taken.front();
  for (size_t i = 1; i < taken.size(); ++i) {
    const ReferenceClaim& other = taken[i];
    if (other.band_bp != first.band_bp) {
      return refuse("the claims name more than one band (" + std::to_string(first.band_bp) +
                    " and " + std::to_string(other.band_bp) + " bp): import one band's claims");
    }
    if (other.broken != first.broken) {
      return refuse("the claims disagree on the outcome: " + claims[0] + " and " + claims[i]);
    }
    if (other.device != first.device) {
      return refuse("the claims were scored on different boards (" + first.device + " and " +
                    other.device + "): import one board's claims");
    }
    if (other.version != first.version) {
      return refuse("the claims were made by different scorer versions");
    }
  }
  if (!function.empty() && function != first.function) {
    return refuse("the claims scored " + first.file + ":" + first.function + ", not the function " +
                  function + " named by --submission");
  }

  BaselineRecord record;
  record.id = id;
  record.submission = RelativeTo(DirName(baseline_path), file);
  record.function = first.function;
  record.sha256 = sha256;
  record.band_bp = first.band_bp;
  ClaimedOutcome claimed;
  claimed.outcome.status = first.broken.empty() ? "qualified" : "disqualified";
  claimed.outcome.broken = first.broken;
  claimed.band_bp = first.band_bp;
  if (first.broken.empty()) {
    std::vector<double> times;
    for (const ReferenceClaim& claim : taken) times.push_back(claim.ranked_ms.value_or(0));
    claimed.ranked_ms = Median(times);
  }
  claimed.board = first.device;
  claimed.scorer = first.version;
  claimed.claims = files;
  record.claimed = claimed;
  baseline->records[id] = record;
  Status written = WriteBaseline(baseline_path, *baseline);
  if (!written.ok()) return fail(written);
  context.out << "imported " << TerminalText(id) << " into " << baseline_path << ": claimed "
              << claimed.outcome.status
              << (claimed.outcome.broken.empty() ? "" : " (" + [&] {
                   std::string list;
                   for (const std::string& rule : claimed.outcome.broken)
                     list += (list.empty() ? "" : ", ") + TerminalText(rule);
                   return list;
                 }() + ")")
              << " at " << claimed.band_bp << " bp"
              << (claimed.ranked_ms ? ", ranked " + std::to_string(*claimed.ranked_ms) + " ms" : "")
              << " on " << claimed.board << " (" << taken.size() << " claim"
              << (taken.size() == 1 ? "" : "s") << ")\n"
              << "next: `ratchet run --baseline " << baseline_path << " --record " << id
              << "` tries to reproduce it; then `ratchet promote` reviews it\n";
  return kExitSuccess;
}

}  // namespace ratchet
