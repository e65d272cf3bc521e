import Foundation
import Postgres

/// `create extension X` for an extension the server does not have: which one, and what to do.
enum MissingExtension {
    /// Debian's package names (postgresql-<major>-<suffix>) for extensions users often enable.
    static let packages: [String: String] = [
        "pg_cron": "cron", "postgis": "postgis-3", "postgis_raster": "postgis-3", "postgis_topology": "postgis-3",
        "postgis_tiger_geocoder": "postgis-3", "address_standardizer": "postgis-3", "pgrouting": "pgrouting",
        "pg_repack": "repack", "pgaudit": "pgaudit", "hypopg": "hypopg", "plpgsql_check": "plpgsql-check",
        "pg_partman": "partman", "rum": "rum", "orafce": "orafce", "ip4r": "ip4r", "semver": "semver",
        "pgtap": "pgtap", "pg_hint_plan": "pg-hint-plan", "periods": "periods", "prefix": "prefix",
    ]

    /// The advice for a server error, or nil when it is not about a missing extension.
    static func advice(_ error: PostgresError, major: Int?) -> String? {
        guard let name = extensionName(error.message) else { return nil }
        let major = major.map(String.init) ?? "<major>"
        if PlatformExtensions.standInNames.contains(name) {
            return
                "extension \"\(name)\" is not available on this server: rlskit's stand-in for it is offered on the throwaway server only (run without --database-url), or install the real extension on this server"
        }
        if let suffix = packages[name] {
            return
                "extension \"\(name)\" is not available on this server: install postgresql-\(major)-\(suffix) (apt-get install postgresql-\(major)-\(suffix))"
        }
        return
            "extension \"\(name)\" is not available on this server and rlskit has no stand-in for it: install it on the server or remove the statement"
    }

    /// PostgreSQL 15: could not open extension control file "…/NAME.control"; 16 and later:
    /// extension "NAME" is not available.
    static func extensionName(_ message: String) -> String? {
        if message.hasPrefix("could not open extension control file"),
            let r = message.range(of: #"/[^/"]+\.control""#, options: .regularExpression)
        {
            return String(message[r].dropFirst().dropLast(".control\"".count))
        }
        if message.hasPrefix("extension \""), message.hasSuffix("\" is not available") {
            return String(message.dropFirst("extension \"".count).dropLast("\" is not available".count))
        }
        return nil
    }
}
