/// Uploads the access file's `mime` / `size` refuse. Where the bucket's own allowed_mime_types or
/// file_size_limit forbids the file too, the Storage API refuses it before the database: the
/// check then confirms that setting instead of asking a policy to repeat it.
extension BucketMatrix {
    func refusedUploads(_ u: HarnessActor, _ who: String, typed: String, large: String) -> [PolicyCheck] {
        var out: [PolicyCheck] = []
        if let t = files.refusedType {
            let name =
                "\(who) uploads \(Self.article(t)) \(t) file (mime allows \(intent.mimeTypes.joined(separator: ", ")))"
            let allowed =
                "(allowed_mime_types is null or cardinality(allowed_mime_types) = 0 or exists (select 1 from"
                + " unnest(allowed_mime_types) m where lower(\(SQL.literal(t))) like replace(lower(m), '*', '%')))"
            out.append(
                files.typeRefusedByBucket
                    ? bucketRefuses(u, name, allowed, at: "mime")
                    : check(u, "insert", "upload", name, uploading(u, typed, mimetype: t), false))
        }
        if let n = files.refusedSize {
            let name = "\(who) uploads a file of \(n) bytes (size allows \(n - 1))"
            out.append(
                files.sizeRefusedByBucket
                    ? bucketRefuses(u, name, "(file_size_limit is null or file_size_limit >= \(n))", at: "size")
                    : check(u, "insert", "upload", name, uploading(u, large, size: n), false))
        }
        return out
    }

    /// "a" or "an" by the word's first letter ("an image/png", "a text/plain").
    static func article(_ word: String) -> String {
        word.first.map { "aeiouAEIOU".contains($0) } == true ? "an" : "a"
    }

    /// Passes when the bucket's row still forbids the file: no row of storage.buckets lets it through.
    func bucketRefuses(_ u: HarnessActor, _ name: String, _ allows: String, at setting: String) -> PolicyCheck {
        PolicyCheck(
            suite: "bucket \(intent.id)", actor: u.label, operation: "insert",
            name: name + ": refused by the bucket's settings",
            statements: ["select 1 from storage.buckets where id = \(bucket) and \(allows)"],
            expectations: [.blocked], location: intent.settings[setting] ?? intent.location)
    }
}
