import Postgres

/// Whether a statement the throwaway server refused to `postgres` (SQLSTATE 42501) is refused on
/// the platform too, decided from the recorded surface (sql/platform/surface.tsv) and supautils'
/// own refusals. rlskit says "it would fail there too" only when the answer is yes.
enum PlatformRefusal {
    enum Verdict: Equatable {
        /// The platform refuses it too.
        case refused
        /// The record does not say: it may work on the platform.
        case unknown
        /// rlskit's sandbox refused it; its hint says so.
        case sandbox
    }

    static let recorded: [PlatformSurface.Record] = (try? PlatformSurface.recorded().records) ?? []

    static func verdict(_ error: PostgresError, records: [PlatformSurface.Record] = recorded) -> Verdict {
        guard error.sqlState == "42501" else { return .unknown }
        let m = error.message
        if m.contains("rlskit's throwaway server") || m.contains("rlskit's own session") { return .sandbox }
        let detail = error.detail ?? ""
        // supautils' own refusals (reserved roles and memberships, SUPERUSER), as the module words them.
        let reserved =
            m.contains("is a reserved role, only superusers can modify it")
            || m.contains("role memberships are reserved, only superusers can")
        let roles = m == "permission denied to alter role" || m == "permission denied to create role"
        if reserved || (roles && (detail.contains("SUPERUSER") || detail.contains("privileged roles"))) {
            return .refused
        }
        // The platform's own guard (storage.protect_delete, storage 2025), which the stand-in has.
        if m.hasPrefix("Direct deletion from storage tables is not allowed") { return .refused }
        // Extensions outside supautils' privileged list need a superuser there too.
        if let name = after(m, "permission denied to create extension ") {
            return PlatformExtensions.privileged.contains(name) ? .unknown : .refused
        }
        if let name = after(m, "permission denied to set parameter ") {
            return Sandbox.allowedConfigs.contains { $0.hasSuffix("*") ? name.hasPrefix($0.dropLast()) : $0 == name }
                ? .unknown : .refused
        }
        if let name = after(m, "must be member of role ") ?? after(m, "permission denied to set role ") {
            return member(name, records) ? .unknown : .refused
        }
        for kind in ["table", "relation", "view", "materialized view", "sequence", "function", "procedure", "schema"] {
            if let name = after(m, "must be owner of \(kind) ") {
                let owners = matching(name, kind: kind, records).compactMap { value($0, "owner", records) }
                return owners.contains(where: ownedByPostgres) ? .unknown : .refused
            }
            if let name = after(m, "permission denied for \(kind) ") {
                let found = matching(name, kind: kind, records)
                if found.contains(where: { value($0, "owner", records).map(ownedByPostgres) ?? false }) {
                    return .unknown
                }
                // Recorded with every privilege for postgres: the refusal is the stand-in's own.
                let full = kind == "schema" ? "UC" : kind == "function" || kind == "procedure" ? "X" : "arwd"
                let grants = found.map { value($0, "grant.postgres", records) ?? "" }
                return grants.contains { g in full.allSatisfy(g.contains) } ? .unknown : .refused
            }
        }
        return .unknown
    }

    /// supautils' role refusals say why in their detail: the line shows it.
    static func showsDetail(_ error: PostgresError) -> Bool {
        error.sqlState == "42501"
            && (error.message == "permission denied to alter role"
                || error.message == "permission denied to create role")
            && error.detail != nil
    }

    /// The name after `prefix`, unquoted; nil when the message does not start so.
    static func after(_ message: String, _ prefix: String) -> String? {
        guard message.hasPrefix(prefix) else { return nil }
        let rest = message.dropFirst(prefix.count)
        guard !rest.isEmpty else { return nil }
        return rest.hasPrefix("\"") && rest.hasSuffix("\"") && rest.count > 1
            ? String(rest.dropFirst().dropLast()) : String(rest)
    }

    static func ownedByPostgres(_ owner: String) -> Bool { owner == "postgres" || owner == "pg_database_owner" }

    /// Whether the platform's postgres is a member of `role` (or is it).
    static func member(_ role: String, _ records: [PlatformSurface.Record]) -> Bool {
        role == "postgres"
            || records.contains {
                $0.kind == "role" && $0.object == "postgres" && $0.attribute == "member_of"
                    && $0.value.split(separator: ",").contains { String($0) == role }
            }
    }

    /// The recorded objects (`kind object`) whose unqualified name is `name`: PostgreSQL's messages
    /// name objects without their schema.
    static func matching(_ name: String, kind: String, _ records: [PlatformSurface.Record]) -> [String] {
        let kinds: Set<String> =
            switch kind {
            case "schema": ["schema"]
            case "function", "procedure": ["function"]
            default: ["table", "view"]
            }
        var out: [String] = []
        for r in records where kinds.contains(r.kind) && r.attribute == "owner" {
            var object = Substring(r.object)
            if let paren = object.firstIndex(of: "(") { object = object[..<paren] }
            let last = object.split(separator: ".").last.map(String.init) ?? ""
            if last == name, !out.contains(r.kind + "\t" + r.object) { out.append(r.kind + "\t" + r.object) }
        }
        return out
    }

    static func value(_ key: String, _ attribute: String, _ records: [PlatformSurface.Record]) -> String? {
        records.first { $0.kind + "\t" + $0.object == key && $0.attribute == attribute }?.value
    }
}
