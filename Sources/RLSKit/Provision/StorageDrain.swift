import Foundation
import Postgres

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Sends the deletions queued in `private.storage_deletion_outbox` to the Storage API
/// (`DELETE <api>/storage/v1/object/<bucket>/<name>` with the service key), marking each sent
/// one; a 404 counts as done (the object is already gone). Failures stay queued with their
/// error and attempt count, so a later drain retries them. Rows whose name `StoragePath`
/// refuses (the table may hold rows written before that check, or out of band) are never sent:
/// they stay queued with the reason in `last_error`. Redirects are not followed.
public enum StorageDrain {
    public struct Result: Sendable {
        public var deleted: [String] = []
        public var failed: [(object: String, error: String)] = []
        /// Unsafe names, left queued and unsent.
        public var refused: [(object: String, reason: String)] = []
    }

    public struct Options: Sendable {
        public var url: String
        public var key: String
        /// At most this many deletions per run.
        public var limit = 1000
        /// Seconds per request.
        public var timeout: Double = 10
        public init(url: String, key: String) {
            self.url = url
            self.key = key
        }
    }

    /// The engine's shape: drains the queue of the database at `target`.
    public static func run(
        options: Options, on target: ConnectionString, log: (String) -> Void = { _ in }
    ) throws -> Result {
        let conn = try PostgresConnection(target)
        defer { conn.close() }
        return try run(
            conn, url: options.url, key: options.key, limit: options.limit, timeout: options.timeout, log: log)
    }

    /// The API URL and key stored by `rlskit apply --storage-url … --service-key-env …`.
    public static func storedSettings(_ conn: PostgresConnection) throws -> (url: String, key: String)? {
        guard
            try conn.query("select to_regprocedure('private.storage_api_setting(text)') is not null as ok").rows[0]
                .decode("ok") as Bool
        else {
            return nil
        }
        let row = try conn.query(
            """
            select private.storage_api_setting('rlskit_storage_api_url') as url,
                   private.storage_api_setting('rlskit_service_role_key') as key
            """
        ).rows[0]
        guard let url: String = try row.decode("url"), let key: String = try row.decode("key") else { return nil }
        return (url, key)
    }

    public static func run(
        _ conn: PostgresConnection, url: String, key: String, limit: Int = 1000,
        timeout: Double = 10, log: (String) -> Void = { _ in }
    ) throws -> Result {
        let url = try StorageSettings.validate(url: url)
        guard
            try conn.query("select to_regclass('private.storage_deletion_outbox') is not null as ok").rows[0].decode(
                "ok") as Bool
        else {
            throw ConfigurationError(
                "private.storage_deletion_outbox does not exist: apply the schema (sql/migrations) first")
        }
        let client = Client(timeout: timeout)
        let mask = SecretMask(key)
        defer { client.close() }
        var result = Result()
        // One row at a time, locked: concurrent drains never send the same deletion twice.
        // Walking by id means a deletion that failed is tried once per drain, not again and again.
        var after: Int64 = 0
        for _ in 0..<limit {
            let done = try conn.transaction { c -> Bool in
                guard
                    let row = try c.query(
                        """
                        select id, bucket_id, object_name from private.storage_deletion_outbox
                        where sent_at is null and id > $1 order by id limit 1 for update skip locked
                        """, [after]
                    ).rows.first
                else { return true }
                let id: Int64 = try row.decode("id")
                after = id
                let bucket: String = try row.decode("bucket_id")
                let name: String = try row.decode("object_name")
                let shown = StoragePath.shown(bucket) + "/" + StoragePath.shown(name)
                let target: URL
                do {
                    if let p = StoragePath.problem(bucket: bucket, name: name) { throw ConfigurationError(p) }
                    target = try StoragePath.url(base: url, bucket: bucket, name: name)
                } catch {
                    let reason = "\(error)"
                    try c.query(
                        "update private.storage_deletion_outbox set last_error = $2 where id = $1",
                        [id, "refused, not sent: " + reason + " (check the row, then delete it)"])
                    result.refused.append((shown, reason))
                    log("refused \(shown): \(reason)")
                    return false
                }
                // What comes back may echo the key, whole, in part or encoded.
                let outcome = client.delete(target, key: key).map(mask.apply)
                if let error = outcome {
                    try c.query(
                        "update private.storage_deletion_outbox set attempts = attempts + 1, last_error = $2 where id = $1",
                        [id, error])
                    result.failed.append((shown, error))
                    log("failed  \(shown): \(error)")
                } else {
                    try c.query(
                        "update private.storage_deletion_outbox set attempts = attempts + 1, last_error = null, sent_at = now() where id = $1",
                        [id])
                    result.deleted.append(shown)
                    log("deleted \(shown)")
                }
                return false
            }
            if done { break }
        }
        return result
    }

    /// One URLSession per drain: its own timeouts (the shared session's 60 s would win over the
    /// request's), and a delegate that refuses redirects (which would carry the key elsewhere).
    final class Client: NSObject, URLSessionTaskDelegate, @unchecked Sendable {
        let timeout: Double
        private var session: URLSession!

        init(timeout: Double) {
            self.timeout = timeout
            super.init()
            let config = URLSessionConfiguration.ephemeral
            config.timeoutIntervalForRequest = timeout
            config.timeoutIntervalForResource = timeout
            config.httpCookieAcceptPolicy = .never
            config.urlCache = nil
            session = URLSession(configuration: config, delegate: self, delegateQueue: nil)
        }

        func close() { session.finishTasksAndInvalidate() }

        func urlSession(
            _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
            newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
        ) {
            completionHandler(nil)
        }

        /// nil on success (2xx or 404), else a short error in words. The key goes only into the header.
        func delete(_ url: URL, key: String) -> String? {
            var request = URLRequest(url: url, timeoutInterval: timeout)
            request.httpMethod = "DELETE"
            request.setValue("Bearer " + key, forHTTPHeaderField: "Authorization")
            request.setValue(key, forHTTPHeaderField: "apikey")
            let box = Box()
            let done = DispatchSemaphore(value: 0)
            let host = url.host.map { h in url.port.map { "\(h):\($0)" } ?? h } ?? "the Storage API"
            let seconds = timeout == timeout.rounded() ? String(Int(timeout)) : String(timeout)
            let task = session.dataTask(with: request) { data, response, error in
                if let error {
                    box.set(Self.describe(error, host: host, seconds: seconds))
                } else if let http = response as? HTTPURLResponse, !(200...299).contains(http.statusCode),
                    http.statusCode != 404
                {
                    if (300...399).contains(http.statusCode) {
                        let to =
                            (http.value(forHTTPHeaderField: "Location")).map {
                                " to " + StoragePath.shown(String($0.prefix(200)))
                            } ?? ""
                        box.set(
                            "HTTP \(http.statusCode): redirected\(to), not followed (the service key goes only to the Storage API URL)"
                        )
                    } else {
                        let body = data.map { String(decoding: $0.prefix(200), as: UTF8.self) } ?? ""
                        box.set(
                            "HTTP \(http.statusCode) \(StoragePath.shown(body))".trimmingCharacters(
                                in: .whitespacesAndNewlines))
                    }
                }
                done.signal()
            }
            task.resume()
            // The session's timeouts should end it first; this bounds it whatever the platform does.
            if done.wait(timeout: .now() + timeout + 5) == .timedOut {
                task.cancel()
                return "no answer from \(host) within \(seconds) s (request timed out)"
            }
            return box.get()
        }

        static func describe(_ error: Error, host: String, seconds: String) -> String {
            guard let e = error as? URLError else { return "request to \(host) failed: \(error.localizedDescription)" }
            switch e.code {
            case .timedOut: return "no answer from \(host) within \(seconds) s (request timed out)"
            case .cannotConnectToHost: return "cannot connect to \(host) (connection refused)"
            case .cannotFindHost, .dnsLookupFailed: return "cannot resolve host \(host)"
            case .networkConnectionLost: return "\(host) closed the connection before answering"
            case .badServerResponse: return "\(host) did not answer with HTTP"
            case .secureConnectionFailed, .serverCertificateUntrusted, .serverCertificateHasBadDate,
                .serverCertificateNotYetValid, .serverCertificateHasUnknownRoot, .clientCertificateRejected:
                return "TLS with \(host) failed (certificate or handshake)"
            case .notConnectedToInternet: return "no network to reach \(host)"
            default: return "request to \(host) failed (URL error \(e.code.rawValue))"
            }
        }
    }

    final class Box: @unchecked Sendable {
        private let lock = NSLock()
        private var value: String?
        func set(_ v: String) {
            lock.lock()
            value = v
            lock.unlock()
        }
        func get() -> String? {
            lock.lock()
            defer { lock.unlock() }
            return value
        }
    }
}
