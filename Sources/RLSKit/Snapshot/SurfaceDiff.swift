/// What changed between two security surfaces, each change classified.
public struct SurfaceChange: Sendable, Equatable {
    public enum Kind: String, Sendable, Comparable {
        /// Someone may now see or do more.
        case widening
        case narrowing
        case neutral
        var rank: Int { self == .widening ? 0 : self == .narrowing ? 1 : 2 }
        public static func < (a: Kind, b: Kind) -> Bool { a.rank < b.rank }
    }
    public var kind: Kind
    /// The entry it is about: `table public.notes`, `policy "x" on table public.notes`, …
    public var subject: String
    public var description: String

    public var line: String {
        "\(kind.rawValue.uppercased().padding(toLength: 9, withPad: " ", startingAt: 0)) \(subject): \(description)"
    }
}

public enum SurfaceDiff {
    /// Changes from `old` to `new`, widening first. Conservative: when a change cannot be
    /// shown to narrow access, it is widening.
    public static func diff(_ old: SecuritySurface, _ new: SecuritySurface) -> [SurfaceChange] {
        var out: [SurfaceChange] = []
        func add(_ k: SurfaceChange.Kind, _ subject: String, _ d: String) {
            out.append(.init(kind: k, subject: subject, description: d))
        }

        for s in Set(new.exposedSchemas).subtracting(old.exposedSchemas).sorted() {
            add(.widening, "schema \(s)", "now exposed through the API")
        }
        for s in Set(old.exposedSchemas).subtracting(new.exposedSchemas).sorted() {
            add(.narrowing, "schema \(s)", "no longer exposed through the API")
        }

        let oldTables = Dictionary(old.tables.map { ($0.header, $0) }, uniquingKeysWith: { a, _ in a })
        let newTables = Dictionary(new.tables.map { ($0.header, $0) }, uniquingKeysWith: { a, _ in a })
        for key in oldTables.keys.sorted() where newTables[key] == nil { add(.narrowing, key, "removed") }
        for (key, t) in newTables {
            if let o = oldTables[key] {
                table(o, t, add)
            } else {
                add(.neutral, key, "added")
                // Compared with nothing: RLS off is open, every grant and permissive policy is new.
                table(
                    .init(kind: t.kind, name: t.name, rls: true, forceRLS: t.forceRLS, grants: [:], policies: []), t,
                    add)
            }
        }

        let oldFns = Dictionary(old.functions.map { ($0.header, $0) }, uniquingKeysWith: { a, _ in a })
        let newFns = Dictionary(new.functions.map { ($0.header, $0) }, uniquingKeysWith: { a, _ in a })
        let callers: Set<String> = ["PUBLIC", "anon", "authenticated"]
        for (key, _) in oldFns where newFns[key] == nil {
            add(.narrowing, key, "removed (or no longer SECURITY DEFINER)")
        }
        for (key, f) in newFns {
            guard let o = oldFns[key] else {
                let open = f.execute.filter(callers.contains)
                add(
                    open.isEmpty ? .neutral : .widening, key,
                    "new SECURITY DEFINER function"
                        + (open.isEmpty ? "" : ", executable by \(open.joined(separator: ", "))"))
                continue
            }
            for g in Set(f.execute).subtracting(o.execute).sorted() { add(.widening, key, "EXECUTE granted to \(g)") }
            for g in Set(o.execute).subtracting(f.execute).sorted() {
                add(.narrowing, key, "EXECUTE revoked from \(g)")
            }
            if o.searchPath != f.searchPath {
                switch (o.searchPath, f.searchPath) {
                case (nil, let n?): add(.narrowing, key, "search_path now fixed to \(n)")
                case (let p?, nil): add(.widening, key, "search_path no longer fixed (was \(p))")
                default:
                    add(.widening, key, "search_path changed from \(o.searchPath ?? "-") to \(f.searchPath ?? "-")")
                }
            }
        }

        // A side whose buckets were not read says nothing about them: not "removed", not "new".
        let unread = old.unread + new.unread.filter { !old.unread.contains($0) }
        for u in unread where u.hasPrefix("storage.buckets ") {
            add(.widening, "buckets", "not compared: \(u)")
        }
        let compared = !unread.contains { $0.hasPrefix("storage.buckets ") }
        let oldBuckets = Dictionary(
            (compared ? old.buckets : []).map { ($0.header, $0) }, uniquingKeysWith: { a, _ in a })
        let newBuckets = Dictionary(
            (compared ? new.buckets : []).map { ($0.header, $0) }, uniquingKeysWith: { a, _ in a })
        for (key, _) in oldBuckets where newBuckets[key] == nil { add(.narrowing, key, "removed") }
        for (key, b) in newBuckets {
            guard let o = oldBuckets[key] else {
                add(b.isPublic ? .widening : .neutral, key, b.isPublic ? "new public bucket" : "new private bucket")
                continue
            }
            if o.isPublic != b.isPublic {
                add(b.isPublic ? .widening : .narrowing, key, b.isPublic ? "now public" : "now private")
            }
            if o.fileSizeLimit != b.fileSizeLimit {
                let narrower =
                    b.fileSizeLimit.flatMap(Int64.init).map { n in
                        o.fileSizeLimit.flatMap(Int64.init).map { n < $0 } ?? true
                    } ?? false
                add(
                    narrower ? .narrowing : .widening, key,
                    "file size limit \(o.fileSizeLimit ?? "none") → \(b.fileSizeLimit ?? "none")")
            }
            if o.allowedMimeTypes != b.allowedMimeTypes {
                let narrower =
                    b.allowedMimeTypes.map { n in o.allowedMimeTypes.map { Set(n).isSubset(of: $0) } ?? true } ?? false
                add(
                    narrower ? .narrowing : .widening, key,
                    "allowed mime types \(o.allowedMimeTypes?.joined(separator: ", ") ?? "any") → \(b.allowedMimeTypes?.joined(separator: ", ") ?? "any")"
                )
            }
            if o.name != b.name { add(.neutral, key, "renamed \(o.name) → \(b.name)") }
        }
        return out.sorted { ($0.kind, $0.subject, $0.description) < ($1.kind, $1.subject, $1.description) }
    }

    static func table(
        _ o: SecuritySurface.Table, _ t: SecuritySurface.Table, _ add: (SurfaceChange.Kind, String, String) -> Void
    ) {
        let key = t.header
        if o.rls != t.rls {
            add(
                t.rls ? .narrowing : .widening, key,
                t.rls ? "row level security enabled" : "row level security disabled")
        }
        if o.forceRLS != t.forceRLS {
            add(
                t.forceRLS ? .narrowing : .widening, key,
                t.forceRLS
                    ? "row level security forced on the owner" : "row level security no longer forced on the owner")
        }
        for grantee in Set(o.grants.keys).union(t.grants.keys).sorted() {
            let before = Set(o.grants[grantee] ?? [])
            let after = Set(t.grants[grantee] ?? [])
            if !after.subtracting(before).isEmpty {
                add(
                    .widening, key,
                    "granted \(after.subtracting(before).sorted().joined(separator: ", ")) to \(grantee)")
            }
            if !before.subtracting(after).isEmpty {
                add(
                    .narrowing, key,
                    "revoked \(before.subtracting(after).sorted().joined(separator: ", ")) from \(grantee)")
            }
        }
        let oldPolicies = Dictionary(o.policies.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        for p in t.policies {
            let subject = "policy \(LockFile.quote(p.name)) on \(key)"
            guard let q = oldPolicies[p.name] else {
                add(
                    p.permissive ? .widening : .narrowing, subject,
                    "added (\(p.permissive ? "permissive" : "restrictive") \(p.command) for \(p.roles.joined(separator: ", ")))"
                )
                continue
            }
            policy(q, p, subject, add)
        }
        let newNames = Set(t.policies.map(\.name))
        for q in o.policies where !newNames.contains(q.name) {
            add(
                q.permissive ? .narrowing : .widening, "policy \(LockFile.quote(q.name)) on \(key)",
                "removed (\(q.permissive ? "permissive" : "restrictive") \(q.command))")
        }
    }

    static func policy(
        _ o: SecuritySurface.Policy, _ p: SecuritySurface.Policy, _ subject: String,
        _ add: (SurfaceChange.Kind, String, String) -> Void
    ) {
        // For a permissive policy more roles or a weaker expression widen; for a restrictive
        // one fewer roles or a weaker expression widen. A stronger expression narrows both.
        if o.permissive != p.permissive {
            add(p.permissive ? .widening : .narrowing, subject, "now \(p.permissive ? "permissive" : "restrictive")")
        }
        if o.command != p.command { add(.widening, subject, "command \(o.command) → \(p.command)") }
        let added = Set(p.roles).subtracting(o.roles).sorted()
        let removed = Set(o.roles).subtracting(p.roles).sorted()
        if !added.isEmpty {
            add(p.permissive ? .widening : .narrowing, subject, "now applies to \(added.joined(separator: ", "))")
        }
        if !removed.isEmpty {
            add(
                p.permissive ? .narrowing : .widening, subject,
                "no longer applies to \(removed.joined(separator: ", "))")
        }
        expression("USING", o.using, p.using, subject, add)
        if o.withCheck != p.withCheck {
            if o.effectiveCheck == p.effectiveCheck {
                add(
                    .neutral, subject,
                    "WITH CHECK \(p.withCheck == nil ? "dropped; USING, the same condition, applies" : "now spells out USING")"
                )
            } else {
                expression("WITH CHECK", o.effectiveCheck, p.effectiveCheck, subject, add)
            }
        }
    }

    static func expression(
        _ clause: String, _ o: String?, _ n: String?, _ subject: String,
        _ add: (SurfaceChange.Kind, String, String) -> Void
    ) {
        guard o != n else { return }
        let change = "\(clause) \(o ?? "(none)") → \(n ?? "(none)")"
        switch (o, n) {
        case (let o?, let n?):
            let before = PolicyExpression(o)
            let after = PolicyExpression(n)
            if before.canonical == after.canonical { return add(.neutral, subject, change + " (same condition)") }
            // Provably narrower: every old conjunct is still there, and more were added.
            let stronger = Set(before.conjuncts).isSubset(of: Set(after.conjuncts))
            add(stronger ? .narrowing : .widening, subject, change)
        default: add(.widening, subject, change)  // appeared or vanished: not provably narrower
        }
    }
}
