/// What a pgTAP file does to the files after it, read from its statements before it runs.
extension PsqlScript {
    /// The first statement whose work outlives the file under pg_prove (one run outside the
    /// file's own BEGIN … ROLLBACK, or a COMMIT); nil for a file that leaves nothing.
    var firstSharedStep: SourceLocation? {
        var open = false
        for (i, step) in steps.enumerated() {
            guard case .sql = step.kind else { continue }
            switch kinds[i] {
            case .begin: open = true
            case .rollback: open = false
            case .commit: if open { return step.location }
            case .installHelpers, .createPgTAP, .twoPhase: continue
            case .other:
                // Session settings end with the file's session.
                let first = words[i].first ?? ""
                if !open, !["set", "reset", "show"].contains(first) { return step.location }
            }
        }
        return nil
    }

    /// The last statement's place, or the file's first line.
    var lastLocation: SourceLocation { steps.last?.location ?? SourceLocation(file: file, line: 1) }

    /// Helper names the file creates itself with a plain `create function tests.<name>`, which
    /// would clash with ours: those are left out. (`create or replace` simply replaces ours.)
    var definedHelpers: Set<String> {
        var out = Set<String>()
        for (i, step) in steps.enumerated() {
            guard case .sql(let sql) = step.kind, words[i].first == "create" else { continue }
            var w = SQLScanner.keywords(sql, count: 4, names: true)
            w.removeFirst()
            guard w.count >= 3, w[0] == "function", w[1] == "tests" || w[1] == "test_overrides" else { continue }
            out.insert(w[2].trimmingCharacters(in: .init(charactersIn: "\"")))
        }
        return out
    }
}
