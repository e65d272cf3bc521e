/// Options several commands take, written once so that they read the same everywhere.
extension OptionSpec {
    /// What the harness takes (`test`, `check`).
    static let harness: [OptionSpec] = [
        .option("jobs", "N", "Spread the checks over N connections (default 1)."),
        .flag("strict", "Fail on RLS tables without declared intent."),
        .flag("allow-untested", "Skip, instead of fail, declared tables and buckets that cannot be tested."),
        .flag("allow-side-effects", "Run even where triggers could make real network calls (http, pg_net)."),
        ProjectOptions.accessTokenHook,
    ]

    /// What the audit takes (`audit`, `check`).
    static let audit: [OptionSpec] = [
        ProjectOptions.exposedSchemas,
        .option("fail-on", "LEVEL", "error (default), warn or info: fail when a finding is at or above it."),
        .option("baseline", "FILE", "Accepted findings: '<fingerprint> # reason' per line."),
    ]

    static let output = OptionSpec.option("output", "FILE", "Write the report to FILE instead of standard output.")
}
