/// Path arithmetic without NSString: the toolchain's `deletingLastPathComponent` traps on a
/// one-character path (`--dir m`, `--json x`).
@_spi(CLI) public enum FilePath {
    /// The folder part of `path` as NSString gives it: "a/m/" → "a", "/m" → "/", "m" → "".
    public static func parent(_ path: String) -> String {
        var p = Substring(path)
        while p.count > 1, p.hasSuffix("/") { p.removeLast() }
        guard let slash = p.lastIndex(of: "/") else { return "" }
        var head = p[..<slash]
        while head.count > 1, head.hasSuffix("/") { head.removeLast() }
        return head.isEmpty ? "/" : String(head)
    }
}
