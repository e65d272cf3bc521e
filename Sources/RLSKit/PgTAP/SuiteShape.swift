/// What a pgTAP file does to the files after it, read from its statements before it runs.
extension PsqlScript {
    /// The first statement whose work outlives the file under pg_prove (one run outside the
    /// file's own BEGIN … ROLLBACK, or a COMMIT); nil for a file that leaves nothing.
    var firstSharedStep: SourceLocation? {
        var open = false
        for step in steps {
            guard case .sql(let sql) = step.kind else { continue }
            switch StatementKind.of(sql, dbdev: dbdev, wrappers: preambleWrappers) {
            case .begin: open = true
            case .rollback: open = false
            case .commit: if open { return step.location }
            case .installHelpers, .createPgTAP, .twoPhase: continue
            case .other:
                // Session settings end with the file's session.
                let first = SQLScanner.keywords(sql, count: 1).first ?? ""
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
        for step in steps {
            guard case .sql(let sql) = step.kind else { continue }
            var w = SQLScanner.keywords(sql, count: 4, names: true)
            guard w.first == "create" else { continue }
            w.removeFirst()
            guard w.count >= 3, w[0] == "function", w[1] == "tests" || w[1] == "test_overrides" else { continue }
            out.insert(w[2].trimmingCharacters(in: .init(charactersIn: "\"")))
        }
        return out
    }
}
