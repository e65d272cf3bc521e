// The tokens and the bracket tree of a deparsed policy expression.
extension PolicyExpression {
    enum Token: Equatable, Sendable {
        case ident(String, quoted: Bool)
        case string(String)
        case number(String)
        case op(String)
        case comma, dot, cast

        func isKeyword(_ k: String) -> Bool {
            if case .ident(let s, false) = self { return s.uppercased() == k }
            return false
        }
    }

    indirect enum Node: Sendable {
        case token(Token)
        /// `(` or `[` with what is inside.
        case group(bracket: Bool, [Node])

        var token: Token? { if case .token(let t) = self { t } else { nil } }
    }

    enum Parser {
        static func parse(_ text: String) -> [Node] {
            var stack: [(bracket: Bool, nodes: [Node])] = [(false, [])]
            let u = Array(text.utf8)
            var i = 0
            func push(_ t: Token) { stack[stack.count - 1].nodes.append(.token(t)) }
            func isIdentStart(_ c: UInt8) -> Bool {
                c == 95 || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c >= 128
            }
            func isIdent(_ c: UInt8) -> Bool { isIdentStart(c) || (c >= 48 && c <= 57) || c == 36 }
            let opChars = Set("+-*/<>=~!@#%^&|`?".utf8)
            while i < u.count {
                let c = u[i]
                switch c {
                case 32, 9, 10, 13: i += 1
                case UInt8(ascii: "("), UInt8(ascii: "["):
                    stack.append((c == UInt8(ascii: "["), []))
                    i += 1
                case UInt8(ascii: ")"), UInt8(ascii: "]"):
                    if stack.count > 1 {
                        let g = stack.removeLast()
                        stack[stack.count - 1].nodes.append(.group(bracket: g.bracket, g.nodes))
                    }
                    i += 1
                case UInt8(ascii: ","):
                    push(.comma)
                    i += 1
                case UInt8(ascii: "."):
                    push(.dot)
                    i += 1
                case UInt8(ascii: ":") where i + 1 < u.count && u[i + 1] == UInt8(ascii: ":"):
                    push(.cast)
                    i += 2
                case UInt8(ascii: "'"):
                    let (s, next) = quoted(u, from: i, quote: UInt8(ascii: "'"), backslashes: false)
                    push(.string(s))
                    i = next
                case UInt8(ascii: "\""):
                    let (s, next) = quoted(u, from: i, quote: UInt8(ascii: "\""), backslashes: false)
                    push(.ident(s, quoted: true))
                    i = next
                case UInt8(ascii: "E") where i + 1 < u.count && u[i + 1] == UInt8(ascii: "'"):
                    let (s, next) = quoted(u, from: i + 1, quote: UInt8(ascii: "'"), backslashes: true)
                    push(.string(s))
                    i = next
                case 48...57:
                    var j = i
                    while j < u.count,
                        (u[j] >= 48 && u[j] <= 57) || u[j] == UInt8(ascii: ".") || u[j] == UInt8(ascii: "e")
                    { j += 1 }
                    push(.number(String(decoding: u[i..<j], as: UTF8.self)))
                    i = j
                default:
                    if isIdentStart(c) {
                        var j = i
                        while j < u.count, isIdent(u[j]) { j += 1 }
                        push(.ident(String(decoding: u[i..<j], as: UTF8.self), quoted: false))
                        i = j
                    } else if opChars.contains(c) {
                        var j = i
                        while j < u.count, opChars.contains(u[j]) { j += 1 }
                        push(.op(String(decoding: u[i..<j], as: UTF8.self)))
                        i = j
                    } else {
                        push(.op(String(decoding: [c], as: UTF8.self)))
                        i += 1
                    }
                }
            }
            while stack.count > 1 {
                let g = stack.removeLast()
                stack[stack.count - 1].nodes.append(.group(bracket: g.bracket, g.nodes))
            }
            return stack[0].nodes
        }

        /// A quoted string or identifier starting at `from` (the opening quote); doubled quotes
        /// (and, for E'' strings, backslashes) escape.
        static func quoted(_ u: [UInt8], from: Int, quote: UInt8, backslashes: Bool) -> (String, Int) {
            var bytes: [UInt8] = []
            var j = from + 1
            while j < u.count {
                if backslashes, u[j] == UInt8(ascii: "\\"), j + 1 < u.count {
                    bytes.append(u[j + 1])
                    j += 2
                    continue
                }
                if u[j] == quote {
                    if j + 1 < u.count, u[j + 1] == quote {
                        bytes.append(quote)
                        j += 2
                        continue
                    }
                    return (String(decoding: bytes, as: UTF8.self), j + 1)
                }
                bytes.append(u[j])
                j += 1
            }
            return (String(decoding: bytes, as: UTF8.self), j)
        }
    }
}
