import Foundation

/// Object names for the storage path checks, shared by the SQL, trigger and drain tests, so the
/// rules in SQL (private.storage_path_problem) and Swift (StoragePath) are held to one table.
/// Each is inside the owner's folder as a prefix, as an attacker would write it.
public enum StorageNames {
    /// Names that must never be queued or sent, one or more per class.
    public static func refused(owner u: String, victim v: String) -> [String] {
        [
            // dot segments: traversal out of the folder, the bucket or the Storage API
            "\(u)/../../../../../auth/v1/admin/users/\(v)", "\(u)/../\(v)/avatar.png", "\(u)/./a.png",
            "\(u)/..", "\(u)/.", "..", ".", "\(u)/a/../../\(v)/a.png",
            // empty segments
            "\(u)//a.png", "\(u)/a.png/", "/\(u)/a.png", "\(u)/", "/", "//",
            // percent-encoded dots and separators, in any case, and double-encoded
            "\(u)/%2e%2e/\(v)/a.png", "\(u)/%2E%2E/x", "\(u)/.%2e/x", "\(u)/%2e/x", "\(u)/%252e%252e/x",
            "\(u)/..%2f..%2fauth", "\(u)/a%2F..%2Fb", "\(u)/..%5c..%5cx", "\(u)/%25", "\(u)/100%25.png",
            // backslashes
            "\(u)/..\\..\\auth\\v1", "\(u)\\..\\\(v)", "\(u)/a\\b.png",
            // control characters, raw and encoded (CR/LF would split a header or a log line)
            "\(u)/a\nb.png", "\(u)/a\rb", "\(u)/a\tb", "\(u)/a\u{7f}", "\(u)/a\u{85}b", "\(u)/a\u{1b}[2Jb",
            "\(u)/a\u{1}", "\(u)/%0d%0aX-Injected:%201", "\(u)/%00.png", "\(u)/%1F", "\(u)/%7f", "\(u)/%c2%85",
            "\(u)/%C2%9F",
            // look-alikes that NFKC maps to '.', '/', '\' or '%'
            "\(u)/\u{FF0E}\u{FF0E}/\(v)/a.png", "\(u)\u{FF0F}..\u{FF0F}\(v)", "\(u)/\u{2025}/x",
            "\(u)/\u{2024}\u{2024}/x",
            "\(u)/\u{FE52}\u{FE52}/x", "\(u)/a\u{FF3C}b", "\(u)/\u{FF05}2e\u{FF05}2e/x", "\(u)/.\u{FF0E}/x",
        ]
    }

    /// Names that are fine: sent, percent-encoded, to `/storage/v1/object/<bucket>/…`.
    public static func accepted(owner u: String) -> [String] {
        [
            "\(u)/a.png", "\(u)/my photo.png", "\(u)/sub/dir/a.png", "\(u)/é.png", "\(u)/e\u{301}.png",
            "\(u)/100%.png", "\(u)/%41.png", "\(u)/%e2%80%a6", "\(u)/....png", "\(u)/...", "\(u)/.hidden",
            "\(u)/a..b", "\(u)/日本語.png", "\(u)/a+b=c&d;e,f.png", "\(u)/a?b#c.png", "\(u)/\u{202E}gnp.exe",
            "\(u)/~tilde_-.png", "\(u)/'quote\"double", "\(u)/%", "\(u)/%zz",
        ]
    }

    /// A deterministic stream of names built from the pieces the rules care about, for the
    /// differential test (the same seed gives the same names).
    public static func generated(count: Int, seed: UInt64) -> [String] {
        let pieces = [
            "a", "b.png", ".", "..", "/", "//", "%2e", "%2E", "%25", "%2f", "%5c", "%41", "%", "2e",
            "\\", "\n", "\u{1}", "\u{7f}", "\u{85}", "é", "e\u{301}", "\u{FF0E}", "\u{FF0F}", "\u{2025}",
            "\u{FF05}", "日", " ", "~", "%c2", "%85", "\u{338}", "\u{200B}", "?", "#",
        ]
        var state = seed
        func next() -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int(truncatingIfNeeded: state >> 33)
        }
        return (0..<count).map { _ in
            let n = 1 + next() % 6
            return (0..<n).map { _ in pieces[next() % pieces.count] }.joined()
        }
    }
}
