import Foundation

/// Users can edit their own user_metadata through the Auth API, so a policy that trusts it
/// trusts the attacker. For policies that read JWT claims, the matrix also runs as a user whose
/// user_metadata carries the values those policies compare against.
enum ClaimAttack {
    /// True when an expression (or a function body it calls) reads the JWT claims.
    static func readsClaims(_ texts: [String]) -> Bool {
        texts.contains { t in
            let l = t.lowercased()
            return l.contains("jwt") || l.contains("user_metadata") || l.contains("raw_user_meta_data")
        }
    }

    /// User M, where a forged user_metadata can reach what the policies read: they read it
    /// themselves, or a custom access-token hook (which may copy it into any claim) runs first.
    static func attacker(_ texts: [String], hook: Bool) -> HarnessActor? {
        guard readsClaims(texts), hook || readsUserMetadata(texts) else { return nil }
        return .user("M", metadata: metadata(for: texts))
    }

    /// M for a table whose rows belong to groups: every user_metadata key the policies (or the
    /// functions they call) read is set to what they compare it with, or else to G1's key; and
    /// the group-like keys sign-up triggers copy out of raw_user_meta_data (org_id, team_id…)
    /// too, since M signs up with that metadata. Nil when nothing a user writes is read.
    static func groupAttacker(_ texts: [String], signUp: [String], groupKey: String, hook: Bool) -> HarnessActor? {
        let signUpReads = readsUserMetadata(signUp)
        guard hook || readsUserMetadata(texts) || signUpReads else { return nil }
        var pairs: [String: JSON] = [:]
        func scan(_ t: String, onlyGroupLike: Bool) {
            let ns = t as NSString
            let all = NSRange(location: 0, length: ns.length)
            for m in readOnly.matches(in: t, range: all) {
                let k = ns.substring(with: m.range(at: 1))
                let l = k.lowercased()
                let groupLike =
                    l.hasSuffix("_id")
                    || ["org", "team", "tenant", "account", "group", "company", "workspace"].contains {
                        l.contains($0)
                    }
                if ignoredKeys.contains(k) || pairs[k] != nil || (onlyGroupLike && !groupLike) { continue }
                pairs[k] = .string(groupKey)
            }
            guard !onlyGroupLike else { return }
            for m in casted.matches(in: t, range: all) { pairs[ns.substring(with: m.range(at: 1))] = .bool(true) }
            for m in compared.matches(in: t, range: all) {
                let k = ns.substring(with: m.range(at: 1))
                if !ignoredKeys.contains(k) { pairs[k] = .string(ns.substring(with: m.range(at: 2))) }
            }
        }
        for t in texts where readsClaims([t]) { scan(t, onlyGroupLike: false) }
        if signUpReads { for t in signUp { scan(t, onlyGroupLike: true) } }
        if pairs.isEmpty { return nil }
        return .user("M", metadata: JSON.sortedObject(pairs.map { ($0.key, $0.value) }).rendered(pretty: false))
    }

    static func readsUserMetadata(_ texts: [String]) -> Bool {
        texts.contains { t in
            let l = t.lowercased()
            return l.contains("user_metadata") || l.contains("raw_user_meta_data")
        }
    }

    /// Said instead of M's checks where they could not fail: claims read only where users cannot write.
    static func unforgeable(suite: String, _ texts: [String], hook: Bool, at: SourceLocation?) -> TestOutcome? {
        guard readsClaims(texts), attacker(texts, hook: hook) == nil else { return nil }
        return TestOutcome(
            suite: suite, name: "M (forged user_metadata)", status: .skipped,
            message:
                "not run: the policies read JWT claims but not user_metadata, and no custom access-token hook is set, "
                + "so nothing a user writes reaches them (declare a 'role' block to check who holds the claim)",
            location: at)
    }

    /// A user_metadata object with every key the expressions read set to the value they compare it with
    /// (`->> 'role') = 'admin'` gives {"role": "admin"}); keys read without a comparison get true.
    static func metadata(for texts: [String]) -> String {
        var pairs: [String: Any] = [:]
        for t in texts {
            let ns = t as NSString
            for m in readOnly.matches(in: t, range: NSRange(location: 0, length: ns.length)) {
                let k = ns.substring(with: m.range(at: 1))
                if !ignoredKeys.contains(k), pairs[k] == nil { pairs[k] = true }
            }
            for m in casted.matches(in: t, range: NSRange(location: 0, length: ns.length)) {
                pairs[ns.substring(with: m.range(at: 1))] = true
            }
            for m in compared.matches(in: t, range: NSRange(location: 0, length: ns.length)) {
                let k = ns.substring(with: m.range(at: 1))
                if !ignoredKeys.contains(k) { pairs[k] = ns.substring(with: m.range(at: 2)) }
            }
        }
        if pairs.isEmpty { pairs = ["role": "admin", "is_admin": true] }
        return JSON.sortedObject(
            pairs.map { k, v in (k, (v as? String).map(JSON.string) ?? .bool(v as? Bool ?? true)) }
        ).rendered(pretty: false)
    }

    static let compared = try! NSRegularExpression(
        pattern: #"->>?\s*'([^']+)'(?:::text)?\)*\s*(?:=|<>|!=)\s*(?:ANY\s*\(\s*ARRAY\[\s*)?'([^']*)'"#,
        options: [.caseInsensitive])
    static let readOnly = try! NSRegularExpression(pattern: #"->>?\s*'([^']+)'"#)
    static let casted = try! NSRegularExpression(
        pattern: #"->>\s*'([^']+)'(?:::text)?\)*\s*::\s*bool"#, options: [.caseInsensitive])

    /// Path keys, not values an attacker would set.
    static let ignoredKeys: Set<String> = [
        "user_metadata", "app_metadata", "sub", "request.jwt.claims", "request.jwt.claim",
    ]
}
