import Foundation
import Postgres

/// Writes the Storage API URL and service key that the avatar cleanup uses: into Supabase
/// Vault when present, else into `private.storage_api_settings` (no API role can read it).
/// Values are bound as parameters and never printed.
public enum StorageSettings {
    public enum Store: String, Sendable {
        case vault = "Supabase Vault"
        case table = "private.storage_api_settings"
    }

    /// Checks the URL before anything is sent: http(s) with a host, no credentials in it.
    /// Returns it with the scheme in lower case (schemes are case-insensitive, URLSession and
    /// libcurl are not all), which is the form stored and sent to.
    @discardableResult
    public static func validate(url: String) throws -> String {
        guard var c = URLComponents(string: url), let scheme = c.scheme?.lowercased(),
            scheme == "https" || scheme == "http"
        else {
            throw ConfigurationError("--storage-url must be an http(s) URL such as https://<project-ref>.supabase.co")
        }
        c.scheme = scheme
        guard let canonical = c.string, let u = URL(string: canonical), let host = u.host, !host.isEmpty else {
            throw ConfigurationError("--storage-url must be an http(s) URL such as https://<project-ref>.supabase.co")
        }
        // Foundation's URLSession on Linux refuses bracketed IPv6 literals ("bad URL"), so the
        // drain could never send to one: refused here rather than failing every deletion later.
        if host.contains(":") || host.hasPrefix("[") {
            throw ConfigurationError(
                "--storage-url has an IPv6 address as its host, which the drain cannot reach: give a host name that resolves to it"
            )
        }
        if u.user != nil || u.password != nil {
            throw ConfigurationError("--storage-url must not carry credentials; pass the key with --service-key-env")
        }
        // Whatever follows is appended to it: a query or fragment would swallow the object path.
        guard u.query == nil, u.fragment == nil, !url.contains("?"), !url.contains("#") else {
            throw ConfigurationError(
                "--storage-url must have no query or fragment (got one after '?' or '#'): give the API's base URL")
        }
        let path = u.path.split(separator: "/").map(String.init)
        if !path.isEmpty, let p = StoragePath.problem(bucket: "b", name: path.joined(separator: "/")) {
            throw ConfigurationError("--storage-url has an unusable path: \(p); give the API's base URL")
        }
        return canonical
    }

    @discardableResult
    public static func write(_ conn: PostgresConnection, url: String, serviceKey: String) throws -> Store {
        let url = try validate(url: url)
        guard !serviceKey.isEmpty else { throw ConfigurationError("the service key is empty") }
        let base = url.hasSuffix("/") ? String(url.dropLast()) : url
        let row = try conn.query(
            """
            select to_regprocedure('vault.create_secret(text,text,text,uuid)') is not null
                   and to_regprocedure('vault.update_secret(uuid,text,text,text,uuid)') is not null as vault,
                   to_regclass('private.storage_api_settings') is not null as settings_table
            """
        ).rows[0]
        if try row.decode("vault") as Bool {
            try conn.transaction { c in
                for (name, value) in [("rlskit_storage_api_url", base), ("rlskit_service_role_key", serviceKey)] {
                    let existing = try c.query("select id from vault.secrets where name = $1", [name]).rows.first
                    if let id: UUID = try existing?.decode("id") {
                        try c.query("select vault.update_secret($1, $2)", [id, value])
                    } else {
                        try c.query("select vault.create_secret($1, $2)", [value, name])
                    }
                }
            }
            return .vault
        }
        guard try row.decode("settings_table") as Bool else {
            throw ConfigurationError(
                "private.storage_api_settings does not exist: apply the schema (sql/migrations) first")
        }
        try conn.query(
            """
            insert into private.storage_api_settings (api_url, service_role_key) values ($1, $2)
            on conflict (id) do update set api_url = excluded.api_url, service_role_key = excluded.service_role_key
            """, [base, serviceKey])
        return .table
    }
}
