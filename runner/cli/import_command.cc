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


// Why an import stops: an error (exit 2 or 3, as the status says) or a refusal (exit 1).
struct Stop {
  Status error = Status::Ok();
  std::string refused;
};
Stop Refuse(std::string why) { return Stop{Status::Ok(), std::move(why)}; }
Stop Fail(Status error) { return Stop{std::move(error), ""}; }

// One import, step by step: what the command line asks, then the claims taken.
struct Import {
  std::string baseline_path, id, spec, file, function;
  std::vector<std::string> claims;
  std::optional<std::string> rules;
  std::string sha256;  // of the submission's bytes

  std::vector<ReferenceClaim> taken;
  std::vector<ClaimFile> files;
};

// The command line: every option there, the record id and the submission's names plain, the
// submission read.
std::optional<Stop> ParseImport(const std::vector<std::string>& argv, Import* import) {
  Result<Args> args = Args::Parse(argv, {{"baseline", true},
                                         {"record", true},
                                         {"submission", true},
                                         {"claim", true, true},
                                         {"rules", true}});
  if (!args.ok()) return Fail(args.status());
  if (!args->positional().empty()) {
    return Fail(Status::Usage("unexpected argument '" + args->positional().front() + "'"));
  }
  for (const char* flag : {"baseline", "record", "submission"}) {
    if (!args->Has(flag)) {
      return Fail(Status::Usage(std::string("import needs --") + flag +
                                (std::string(flag) == "submission" ? " FILE[:function]" : " ...")));
    }
  }
  import->claims = args->GetAll("claim");
  if (import->claims.empty() || import->claims.size() > 3) {
    return Fail(Status::Usage("give one to three claims: --claim RECORD.json"));
  }
  import->baseline_path = *args->Get("baseline");
  import->id = *args->Get("record");
  import->rules = args->Get("rules");
  if (Status valid = CheckRecordId(import->id, "--record"); !valid.ok()) return Fail(valid);
  const std::string& spec = import->spec = *args->Get("submission");
  import->file = spec;
  if (size_t colon = spec.rfind(':'); colon != std::string::npos && colon > 0 &&
                                      spec.find('/', colon) == std::string::npos) {
    import->file = spec.substr(0, colon);
    import->function = spec.substr(colon + 1);
  }
  if (!std::filesystem::exists(import->file)) {
    return Fail(Status::BadInput("no method file at " + import->file));
  }
  // Names the baseline keeps and `ratchet run` checks: refused here, before anything is audited.
  if (Status names = CheckSubmissionNames(spec); !names.ok()) return Fail(names);
  Result<std::string> bytes = ReadInputFile(import->file, "--submission", kMaxMethodFile);
  if (!bytes.ok()) return Fail(bytes.status());
  import->sha256 = Sha256Hex(*bytes);
  return std::nullopt;
}

// One claim audited against the submission, as `ratchet audit --submission` does: it must stand,
// be official, name its board and its submission in short printable words, and not be given twice.
std::optional<Stop> TakeClaim(const std::string& claim, Import* import) {
  const std::string& file = import->file;
  AuditOptions options;
  options.submission = file;
  options.rules_path = import->rules;
  Result<AuditResult> audit = Audit(claim, options);
  if (!audit.ok()) return Fail(audit.status());
  if (!audit->nothing_to_audit.empty()) return Refuse(claim + ": " + audit->nothing_to_audit);
  if (audit->verdict() != AuditVerdict::kStands || !audit->reference) {
    std::string findings;
    for (const AuditFinding& finding : audit->findings) {
      if (finding.kind == AuditFinding::Kind::kBreaks) {
        findings += "\n  " + finding.where + ": " + finding.message;
      }
    }
    return Refuse(claim + " does not stand under `ratchet audit --submission " + file + "`:" +
                  (findings.empty() ? " it is not a reference scorer's record" : findings));
  }
  if (!audit->unofficial.empty()) {
    std::string why;
    for (const std::string& reason : audit->unofficial) why += (why.empty() ? "" : "; ") + reason;
    return Refuse(claim + " stands but is not an official claim (" + why +
                  "): only official claims are held to");
  }
  const ReferenceClaim& reference = *audit->reference;
  if (reference.device.empty() || !reference.sandboxed) {
    return Refuse(claim + " does not say " +
                  (reference.device.empty() ? "which board it was scored on"
                                            : "that it ran in the sandbox") +
                  ": only official claims are held to");
  }
  // What the baseline keeps of a claim's words is short and printable, as a board's name and a
  // scorer's version are: a claim's longer or stranger text is not written into a baseline.
  for (const auto& [field, text] : {std::pair<const char*, const std::string&>{
                                        "device", reference.device},
                                    {"version", reference.version}}) {
    if (text.size() > 256 || !PrintableAscii(text)) {
      return Fail(Status::BadInput(claim + ": its " + field + " (" + Excerpt(text, 60) +
                                   ") is not a board's name or a scorer's version: at most "
                                   "256 printable ASCII characters"));
    }
  }
  if (reference.source_sha256.empty()) {
    return Refuse(claim + " names no submission (no source_sha256): it cannot be tied to " + file);
  }
  Result<std::string> claim_bytes = ReadFile(claim, 64u << 20);
  if (!claim_bytes.ok()) return Fail(claim_bytes.status());
  const std::string claim_sha256 = Sha256Hex(*claim_bytes);
  for (const ClaimFile& earlier : import->files) {
    if (earlier.sha256 == claim_sha256) {
      return Refuse(claim + " is the claim " + earlier.path + " again: give each claim once");
    }
  }
  import->taken.push_back(reference);
  import->files.push_back({RelativeTo(DirName(import->baseline_path), claim), claim_sha256});
  return std::nullopt;
}

// The claims taken name one band, one outcome, one board and one scorer version, and the
// function --submission names, if it names one.
std::optional<Stop> CheckClaimsAgree(const Import& import) {
  const ReferenceClaim& first = import.taken.front();
  for (size_t i = 1; i < import.taken.size(); ++i) {
    const ReferenceClaim& other = import.taken[i];
    if (other.band_bp != first.band_bp) {
      return Refuse("the claims name more than one band (" + std::to_string(first.band_bp) +
                    " and " + std::to_string(other.band_bp) + " bp): import one band's claims");
    }
    if (other.broken != first.broken) {
      return Refuse("the claims disagree on the outcome: " + import.claims[0] + " and " +
                    import.claims[i]);
    }
    if (other.device != first.device) {
      return Refuse("the claims were scored on different boards (" + first.device + " and " +
                    other.device + "): import one board's claims");
    }
    if (other.version != first.version) {
      return Refuse("the claims were made by different scorer versions");
    }
  }
  if (!import.function.empty() && import.function != first.function) {
    return Refuse("the claims scored " + first.file + ":" + first.function +
                  ", not the function " + import.function + " named by --submission");
  }
  return std::nullopt;
}

// The record the claims make: claimed, not reviewed; its ranked time the claims' median.
BaselineRecord RecordOfClaims(const Import& import) {
  const ReferenceClaim& first = import.taken.front();
  BaselineRecord record;
  record.id = import.id;
  record.submission = RelativeTo(DirName(import.baseline_path), import.file);
  record.function = first.function;
  record.sha256 = import.sha256;
  record.band_bp = first.band_bp;
  ClaimedOutcome claimed;
  claimed.outcome.status = first.broken.empty() ? "qualified" : "disqualified";
  claimed.outcome.broken = first.broken;
  claimed.band_bp = first.band_bp;
  if (first.broken.empty()) {
    std::vector<double> times;
    for (const ReferenceClaim& claim : import.taken) times.push_back(claim.ranked_ms.value_or(0));
    claimed.ranked_ms = Median(times);
  }
  claimed.board = first.device;
  claimed.scorer = first.version;
  claimed.claims = import.files;
  record.claimed = claimed;
  return record;
}

void PrintImported(const Import& import, const ClaimedOutcome& claimed, std::ostream& out) {
  std::string broken;
  for (const std::string& rule : claimed.outcome.broken) {
    broken += (broken.empty() ? "" : ", ") + TerminalText(rule);
  }
  out << "imported " << TerminalText(import.id) << " into " << import.baseline_path
      << ": claimed " << claimed.outcome.status << (broken.empty() ? "" : " (" + broken + ")")
      << " at " << claimed.band_bp << " bp"
      << (claimed.ranked_ms ? ", ranked " + std::to_string(*claimed.ranked_ms) + " ms" : "")
      << " on " << claimed.board << " (" << import.taken.size() << " claim"
      << (import.taken.size() == 1 ? "" : "s") << ")\n"
      << "next: `ratchet run --baseline " << import.baseline_path << " --record " << import.id
      << "` tries to reproduce it; then `ratchet promote` reviews it\n";
}

}  // namespace

int RunImport(CommandContext& context) {
  auto stop = [&](const Stop& why) {
    if (!why.error.ok()) return ReportError(context.err, "import", why.error);
    context.err << "ratchet import: refused: " << why.refused << "\nnothing was written\n";
    return static_cast<int>(kExitFinding);
  };
  Import import;
  if (std::optional<Stop> why = ParseImport(context.argv, &import)) return stop(*why);
  Result<BaselineLock> lock = BaselineLock::Acquire(import.baseline_path, "import", context.err);
  if (!lock.ok()) return stop(Fail(lock.status()));
  Result<Baseline> baseline = LoadBaseline(import.baseline_path);
  if (!baseline.ok()) return stop(Fail(baseline.status()));
  if (baseline->records.count(import.id)) {
    return stop(Fail(Status::BadInput(import.baseline_path + " has a record \"" + import.id +
                                      "\" already: import under a new id")));
  }
  for (const std::string& claim : import.claims) {
    if (std::optional<Stop> why = TakeClaim(claim, &import)) return stop(*why);
  }
  if (std::optional<Stop> why = CheckClaimsAgree(import)) return stop(*why);
  const BaselineRecord record = RecordOfClaims(import);
  baseline->records[import.id] = record;
  Status written = WriteBaseline(import.baseline_path, *baseline);
  if (!written.ok()) return stop(Fail(written));
  PrintImported(import, *record.claimed, context.out);
  return kExitSuccess;
}

}  // namespace ratchet
