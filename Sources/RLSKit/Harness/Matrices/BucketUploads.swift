import Foundation
import Postgres

/// What storage.buckets says about uploads: the Storage API refuses others before any policy runs.
struct BucketFacts: Sendable, Equatable {
    var sizeLimit: Int?
    /// allowed_mime_types; empty: any type.
    var allowedTypes: [String] = []

    /// nil when the bucket does not exist.
    static func load(_ conn: PostgresConnection, _ id: String) throws -> BucketFacts? {
        let rows = try conn.query(
            "select coalesce(file_size_limit::text, '') as l, coalesce(array_to_string(allowed_mime_types, ','), '') as m from storage.buckets where id = $1",
            [id]
        ).rows
        guard let row = rows.first else { return nil }
        let limit: String = try row.decode("l")
        let mime: String = try row.decode("m")
        return BucketFacts(sizeLimit: Int(limit), allowedTypes: mime.split(separator: ",").map(String.init))
    }

    /// Whether the Storage API lets a file of this type and size past the bucket's settings.
    func allows(type: String) -> Bool {
        allowedTypes.isEmpty || allowedTypes.contains { BucketUploads.matches(type, $0) }
    }
    func allows(size: Int) -> Bool { sizeLimit.map { size <= $0 } ?? true }
}

/// The file the matrix uploads, with metadata as the Storage API writes it, so policies on
/// `metadata->>'mimetype'` or `metadata->>'contentLength'` see what they would see there.
struct BucketUploads: Sendable {
    var mimetype: String
    var size: Int
    /// A type the access file's `mime` line leaves out, to check it is refused.
    var refusedType: String?
    /// One byte over the access file's `size`, to check it is refused.
    var refusedSize: Int?
    /// The bucket's own settings refuse `refusedType` / `refusedSize`: the Storage API refuses
    /// them before the database, so no policy needs to.
    var typeRefusedByBucket = false
    var sizeRefusedByBucket = false

    init(intent: BucketIntent, facts: BucketFacts) {
        let declared =
            intent.mimeTypes.first { facts.allows(type: Self.concrete($0)) } ?? intent.mimeTypes.first
            ?? facts.allowedTypes.first ?? "image/png"
        mimetype = Self.concrete(declared)
        size = min(Self.defaultSize, intent.maxSize ?? Int.max, facts.sizeLimit ?? Int.max)
        if !intent.mimeTypes.isEmpty {
            // A type the bucket takes but the access file does not is the one a policy must refuse.
            let candidates =
                facts.allowedTypes.map(Self.concrete) + [
                    "text/plain", "application/x-msdownload", "image/svg+xml",
                ]
            let outside = candidates.filter { t in !intent.mimeTypes.contains { Self.matches(t, $0) } }
            refusedType = outside.first { facts.allows(type: $0) } ?? outside.first
            typeRefusedByBucket = refusedType.map { !facts.allows(type: $0) } ?? false
        }
        refusedSize = intent.maxSize.map { $0 + 1 }
        sizeRefusedByBucket = refusedSize.map { !facts.allows(size: $0) } ?? false
    }

    /// The file extension for the type, so names look like the files they stand for.
    var ext: String {
        let sub = mimetype.split(separator: "/").last.map(String.init) ?? "bin"
        let known = ["jpeg": "jpg", "svg+xml": "svg", "plain": "txt", "mpeg": "mp3", "octet-stream": "bin"]
        return known[sub] ?? (sub.allSatisfy { $0.isLetter || $0.isNumber } ? sub : "bin")
    }

    /// The metadata the Storage API's permission check inserts as the caller: only the type and
    /// the declared length (the full metadata is written afterwards as the service, past RLS).
    func checked(mimetype m: String? = nil, size n: Int? = nil) -> String {
        Self.checked(mimetype: m ?? mimetype, size: n ?? size)
    }

    static func checked(mimetype: String, size: Int) -> String {
        "{\"mimetype\": \(HarnessActor.json(mimetype)), \"contentLength\": \(size)}"
    }

    /// The upload's size when nothing says otherwise.
    static let defaultSize = 1024

    /// The type a client sends for a file of this name, from its extension (the reverse of `ext`).
    static func type(ofName name: String) -> String {
        let file = name.split(separator: "/").last.map(String.init) ?? name
        guard let dot = file.lastIndex(of: "."), dot != file.startIndex else { return "application/octet-stream" }
        let known = [
            "png": "image/png", "jpg": "image/jpeg", "jpeg": "image/jpeg", "gif": "image/gif", "webp": "image/webp",
            "svg": "image/svg+xml", "avif": "image/avif", "pdf": "application/pdf", "txt": "text/plain",
            "csv": "text/csv", "html": "text/html", "json": "application/json", "zip": "application/zip",
            "mp3": "audio/mpeg", "mp4": "video/mp4", "bin": "application/octet-stream",
        ]
        return known[file[file.index(after: dot)...].lowercased()] ?? "application/octet-stream"
    }

    /// The metadata of a stored object, as the Storage API writes it once the upload is done.
    func stored() -> String {
        let etag = UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        return "{\"eTag\": \"\\\"\(etag)\\\"\", \"size\": \(size), \"mimetype\": \(HarnessActor.json(mimetype)), "
            + "\"cacheControl\": \"max-age=3600\", \"lastModified\": \"\(Self.now())\", "
            + "\"contentLength\": \(size), \"httpStatusCode\": 200}"
    }

    static func now() -> String {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return f.string(from: Date())
    }

    /// `type/subtype`, the subtype possibly `*` (as allowed_mime_types takes them).
    static func isMimeType(_ t: String) -> Bool {
        let parts = t.split(separator: "/", omittingEmptySubsequences: false)
        let ok = { (p: Substring) in
            !p.isEmpty && p.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "!#$&^_.+-".contains($0)) }
        }
        guard parts.count == 2 else { return false }
        if parts[0] == "*" { return parts[1] == "*" }
        return ok(parts[0]) && (parts[1] == "*" || ok(parts[1]))
    }

    static func matches(_ type: String, _ pattern: String) -> Bool {
        let t = type.lowercased()
        let p = pattern.lowercased()
        if p == "*/*" { return true }
        if p.hasSuffix("/*") { return t.hasPrefix(String(p.dropLast())) }
        return t == p
    }

    /// A real type for a wildcard (`image/*` → image/png).
    static func concrete(_ t: String) -> String {
        guard t.hasSuffix("/*") else { return t }
        let top = String(t.dropLast(2))
        let sample = ["image": "png", "text": "plain", "video": "mp4", "audio": "mpeg", "application": "pdf"]
        return top == "*" ? "image/png" : "\(top)/\(sample[top] ?? "x-rlskit")"
    }
}
