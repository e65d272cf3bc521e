/// Escaping of text for output. Names come from SQL anyone with DDL rights wrote, so none may
/// reach a terminal or a CI log raw: `text` is the one path of every text output (the CLI's
/// standard output and error, text reports, annotations), `line` is the same for one value.
@_spi(CLI) public enum TextEscape {
    /// Escaping for a report format (YAML, XML): each scalar found in `table` is replaced,
    /// `other` may replace any scalar the table does not name (nil keeps it).
    static func escape(
        _ s: String, _ table: [Unicode.Scalar: String], other: (Unicode.Scalar) -> String? = { _ in nil }
    ) -> String {
        var out = ""
        for c in s.unicodeScalars {
            if let r = table[c] ?? other(c) { out += r } else { out.unicodeScalars.append(c) }
        }
        return out
    }

    /// What must never be written raw: C0 and C1 controls and DEL (terminal escapes, BEL, line
    /// breaks), the line and paragraph separators, and the bidi controls that reorder what a
    /// line shows (U+202A–U+202E, U+2066–U+2069, and the marks U+061C, U+200E, U+200F).
    static func isUnsafe(_ u: Unicode.Scalar) -> Bool {
        switch u.value {
        case 0..<0x20, 0x7F...0x9F, 0x061C, 0x200E, 0x200F, 0x2028...0x202E, 0x2066...0x2069: return true
        default: return false
        }
    }

    /// `\u{1b}`: visible, and the same notation the storage drain uses for names.
    static func visible(_ u: Unicode.Scalar) -> String { "\\u{\(String(u.value, radix: 16))}" }

    /// One value (a name) inside a line: every unsafe character, line breaks and tabs too, as
    /// `\u{…}`, and the runner's old command form `##[` (matched anywhere in a line) as `#\u{23}[`.
    public static func line(_ s: String) -> String {
        guard s.unicodeScalars.contains(where: { isUnsafe($0) || $0 == "#" }) else { return s }
        let scalars = Array(s.unicodeScalars)
        var out = ""
        for (i, c) in scalars.enumerated() {
            if isUnsafe(c) || oldCommand(scalars, at: i) {
                out += visible(c)
            } else {
                out.unicodeScalars.append(c)
            }
        }
        return out
    }

    /// True for the second `#` of `##[`: the one each format writes escaped, so no line of its
    /// output holds the GitHub Actions runner's old command form.
    static func oldCommand(_ s: [Unicode.Scalar], at i: Int) -> Bool {
        s[i] == "#" && i > 0 && s[i - 1] == "#" && i + 1 < s.count && s[i + 1] == "["
    }

    /// Text of any number of lines for a terminal or a log. Keeps line breaks (CRLF becomes LF)
    /// and tabs; writes every other unsafe character as `\u{…}`, except, with `color`, the
    /// colour codes rlskit itself writes. No line can be a GitHub Actions workflow command:
    /// `##[` (the old form, matched anywhere in a line) becomes `#\u{23}[`, and unless
    /// `workflowCommands` (annotations rlskit writes on purpose) a first `::` (after blanks,
    /// which the runner skips) has its first colon written `\u{3a}`.
    public static func text(_ s: String, color: Bool = false, workflowCommands: Bool = false) -> String {
        if isPlain(s, workflowCommands: workflowCommands) { return s }
        let scalars = Array(s.unicodeScalars)
        var out = ""
        out.reserveCapacity(s.utf8.count)
        var i = 0
        var lineStart = true
        while i < scalars.count {
            let c = scalars[i]
            if !workflowCommands {
                if lineStart && !c.properties.isWhitespace {
                    lineStart = false
                    if c == ":" && i + 1 < scalars.count && scalars[i + 1] == ":" {
                        out += visible(c)
                        i += 1
                        continue
                    }
                }
            }
            if oldCommand(scalars, at: i) {
                out += visible(c)
                i += 1
                continue
            }
            if c == "\r" && i + 1 < scalars.count && scalars[i + 1] == "\n" {
                i += 1
                continue
            }
            if c == "\n" || c == "\t" {
                out.unicodeScalars.append(c)
                if c == "\n" { lineStart = true }
            } else if c == "\u{1B}", color, let n = colourCode(scalars, at: i) {
                out.unicodeScalars.append(contentsOf: scalars[i..<(i + n)])
                i += n
                continue
            } else if isUnsafe(c) {
                out += visible(c)
            } else {
                out.unicodeScalars.append(c)
            }
            i += 1
        }
        return out
    }

    /// True when `text` would change nothing: one pass, no copy (reports can be megabytes).
    static func isPlain(_ s: String, workflowCommands: Bool) -> Bool {
        var lineStart = true
        var previous: (Unicode.Scalar, Unicode.Scalar) = (" ", " ")
        for c in s.unicodeScalars {
            if c != "\n" && c != "\t" && isUnsafe(c) { return false }
            if c == "[" && previous == ("#", "#") { return false }
            if lineStart && !c.properties.isWhitespace {
                if c == ":" && previous.1 == ":" && !workflowCommands { return false }
                // One ":" first: the next character decides.
                lineStart = c == ":" && !workflowCommands
            }
            if c == "\n" { lineStart = true }
            previous = (previous.1, c)
        }
        return true
    }

    /// The SGR codes rlskit paints with (reset, bold, dim, red, green, yellow, bold red, bold
    /// yellow): the length of the one at `i`, nil for any other escape.
    static func colourCode(_ s: [Unicode.Scalar], at i: Int) -> Int? {
        guard i + 2 < s.count, s[i + 1] == "[" else { return nil }
        var j = i + 2
        var code = ""
        while j < s.count, j - i < 8, s[j] == ";" || ("0"..."9").contains(s[j]) {
            code.unicodeScalars.append(s[j])
            j += 1
        }
        guard j < s.count, s[j] == "m", ["0", "1", "2", "31", "32", "33", "1;31", "1;33"].contains(code) else {
            return nil
        }
        return j + 1 - i
    }
}
