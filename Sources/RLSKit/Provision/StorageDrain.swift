import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Postgres

/// Sends the deletions queued in `private.storage_deletion_outbox` to the Storage API
/// (`DELETE <api>/storage/v1/object/<bucket>/<name>` with the service key), marking each sent
/// one; a 404 counts as done (the object is already gone). Failures stay queued with their
/// error and attempt count, so a later drain retries them.
public enum StorageDrain {
    public struct Result: Sendable {
        public var deleted: [String] = []
        public var failed: [(object: String, error: String)] = []
    }

    /// The API URL and key stored by `rlskit apply --storage-url … --service-key-env …`.
    public static func storedSettings(_ conn: PostgresConnection) throws -> (url: String, key: String)? {
        guard try conn.query("select to_regprocedure('private.storage_api_setting(text)') is not null as ok").rows[0].decode("ok") as Bool else {
            return nil
        }
        let row = try conn.query("""
            select private.storage_api_setting('rlskit_storage_api_url') as url,
                   private.storage_api_setting('rlskit_service_role_key') as key
            """).rows[0]
        guard let url: String = try row.decode("url"), let key: String = try row.decode("key") else { return nil }
        return (url, key)
    }

    public static func run(_ conn: PostgresConnection, url: String, key: String, limit: Int = 1000,
                           timeout: Double = 10, log: (String) -> Void = { _ in }) throws -> Result {
        try StorageSettings.validate(url: url)
        guard try conn.query("select to_regclass('private.storage_deletion_outbox') is not null as ok").rows[0].decode("ok") as Bool else {
            throw ConfigurationError("private.storage_deletion_outbox does not exist: apply the schema (sql/migrations) first")
        }
        let base = url.hasSuffix("/") ? String(url.dropLast()) : url
        var result = Result()
        // One row at a time, locked: concurrent drains never send the same deletion twice.
        // Walking by id means a deletion that failed is tried once per drain, not again and again.
        var after: Int64 = 0
        for _ in 0..<limit {
            let done = try conn.transaction { c -> Bool in
                guard let row = try c.query("""
                    select id, bucket_id, object_name from private.storage_deletion_outbox
                    where sent_at is null and id > $1 order by id limit 1 for update skip locked
                    """, [after]).rows.first else { return true }
                let id: Int64 = try row.decode("id")
                after = id
                let bucket: String = try row.decode("bucket_id"), name: String = try row.decode("object_name")
                let target = base + "/storage/v1/object/" + escape(bucket) + "/" + name.split(separator: "/", omittingEmptySubsequences: false).map { escape(String($0)) }.joined(separator: "/")
                let outcome = delete(target, key: key, timeout: timeout).map { $0.replacingOccurrences(of: key, with: "***") }
                if let error = outcome {
                    try c.query("update private.storage_deletion_outbox set attempts = attempts + 1, last_error = $2 where id = $1", [id, error])
                    result.failed.append(("\(bucket)/\(name)", error))
                    log("failed  \(bucket)/\(name): \(error)")
                } else {
                    try c.query("update private.storage_deletion_outbox set attempts = attempts + 1, last_error = null, sent_at = now() where id = $1", [id])
                    result.deleted.append("\(bucket)/\(name)")
                    log("deleted \(bucket)/\(name)")
                }
                return false
            }
            if done { break }
        }
        return result
    }

    /// Percent-encodes one path segment (RFC 3986 unreserved characters stay).
    static func escape(_ s: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return s.addingPercentEncoding(withAllowedCharacters: allowed) ?? s
    }

    /// nil on success (2xx or 404), else a short error. The key goes only into the header.
    static func delete(_ url: String, key: String, timeout: Double) -> String? {
        guard let u = URL(string: url) else { return "invalid URL" }
        var request = URLRequest(url: u, timeoutInterval: timeout)
        request.httpMethod = "DELETE"
        request.setValue("Bearer " + key, forHTTPHeaderField: "Authorization")
        request.setValue(key, forHTTPHeaderField: "apikey")
        let box = Box()
        let done = DispatchSemaphore(value: 0)
        let task = URLSession.shared.dataTask(with: request) { data, response, error in
            if let error {
                box.set("request failed: \(error.localizedDescription)")
            } else if let http = response as? HTTPURLResponse, !(200...299).contains(http.statusCode), http.statusCode != 404 {
                let body = data.map { String(decoding: $0.prefix(200), as: UTF8.self) } ?? ""
                box.set("HTTP \(http.statusCode) \(body)".trimmingCharacters(in: .whitespacesAndNewlines))
            }
            done.signal()
        }
        task.resume()
        done.wait()
        return box.get()
    }

    final class Box: @unchecked Sendable {
        private let lock = NSLock()
        private var value: String?
        func set(_ v: String) { lock.lock(); value = v; lock.unlock() }
        func get() -> String? { lock.lock(); defer { lock.unlock() }; return value }
    }
}
