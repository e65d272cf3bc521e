@_spi(CLI) import RLSKit

/// Options several commands take, written once so that they read the same everywhere.
extension OptionSpec {
    /// What the harness takes (`test`, `check`).
    static let harness = harness(jobs: "Spread the checks over N connections (default 1).")

    /// The same, with `--jobs` described as this command uses it.
    static func harness(jobs: String) -> [OptionSpec] {
        [
            .option("jobs", "N", jobs),
            .flag("strict", "Fail on RLS tables without declared intent."),
            .flag("allow-untested", "Skip, instead of fail, declared tables and buckets that cannot be tested."),
            .flag("allow-side-effects", "Run even where triggers could make real network calls (http, pg_net)."),
            ProjectOptions.accessTokenHook,
        ]
    }

    /// What the audit takes (`audit`, `check`).
    static let audit: [OptionSpec] = [
        ProjectOptions.exposedSchemas,
        .option("fail-on", "LEVEL", "error (default), warn or info: fail when a finding is at or above it."),
        .option("baseline", "FILE", "Accepted findings: '<fingerprint> # reason' per line."),
    ]

    static let output = OptionSpec.option("output", "FILE", "Write the report to FILE instead of standard output.")
}

/// `--jobs`, `--strict`, `--allow-untested` and `--allow-side-effects`, read once for `test` and
/// `check`; the project's settings (the hook among them) come from `ProjectOptions`.
enum HarnessGroup {
    static func options(_ args: ParsedArguments) throws -> HarnessOptions {
        var options = HarnessOptions()
        if let j = args.value("jobs") {
            guard let n = Int(j), n >= 1, n <= 64 else {
                throw ConfigurationError("--jobs must be a number from 1 to 64 (got '\(j)')")
            }
            options.jobs = n
        }
        options.strict = args.flag("strict")
        options.allowUntested = args.flag("allow-untested")
        options.allowSideEffects = args.flag("allow-side-effects")
        return options
    }
}
