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

    /// Helper names the file defines itself, which would clash with ours: those are left out.
    /// A plain `create function tests.<name>` anywhere, and a `create or replace` whose work the
    /// file keeps for the files after it (outside its own BEGIN … ROLLBACK, or committed): a
    /// suite that carries its own copy of the helpers may have other signatures, and an
    /// overload of ours would make its calls ambiguous. A `create or replace` the file rolls
    /// back simply replaces ours inside it.
    var definedHelpers: Set<String> {
        var out = Set<String>()
        var pending = Set<String>()
        var open = false
        for (i, step) in steps.enumerated() {
            guard case .sql = step.kind else { continue }
            switch kinds[i] {
            case .begin: open = true
            case .rollback:
                open = false
                pending = []
            case .commit:
                open = false
                out.formUnion(pending)
                pending = []
            default: break
            }
            guard words[i].first == "create" else { continue }
            var w = words[i]
            w.removeFirst()
            let replaces = w.count >= 2 && w[0] == "or" && w[1] == "replace"
            if replaces { w.removeFirst(2) }
            guard w.count >= 3, w[0] == "function", w[1] == "tests" || w[1] == "test_overrides" else { continue }
            let name = w[2].trimmingCharacters(in: .init(charactersIn: "\""))
            if !replaces || !open { out.insert(name) } else { pending.insert(name) }
        }
        return out
    }
}
