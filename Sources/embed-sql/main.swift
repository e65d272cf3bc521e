import Foundation

// Build tool for the EmbedSQL plugin: writes a Swift file that holds every file under a
// directory as a string, so rlskit's SQL travels inside the binary.
//   embed-sql <sql-directory> <output.swift>
let args = CommandLine.arguments
guard args.count == 3 else {
    FileHandle.standardError.write(Data("usage: embed-sql <sql-directory> <output.swift>\n".utf8))
    exit(2)
}
let root = URL(fileURLWithPath: args[1]).standardizedFileURL.path
let fm = FileManager.default
let paths = (fm.subpaths(atPath: root) ?? []).filter { path in
    var isDir: ObjCBool = false
    return fm.fileExists(atPath: root + "/" + path, isDirectory: &isDir) && !isDir.boolValue && !path.hasSuffix(".md")
        && !path.split(separator: "/").contains { $0.hasPrefix(".") }
}.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }

/// A Swift string literal with every character that needs it escaped; exact for any text.
func literal(_ s: String) -> String {
    var out = "\""
    for u in s.unicodeScalars {
        switch u {
        case "\\": out += "\\\\"
        case "\"": out += "\\\""
        case "\n": out += "\\n"
        case "\r": out += "\\r"
        case "\t": out += "\\t"
        default:
            if u.value < 0x20 || u.value == 0x7F {
                out += "\\u{\(String(u.value, radix: 16))}"
            } else {
                out.unicodeScalars.append(u)
            }
        }
    }
    return out + "\""
}

var swift =
    "// Generated at build time from sql/ by the EmbedSQL plugin.\nenum EmbeddedSQL {\n    static let files: [(path: String, contents: String)] = [\n"
for path in paths {
    guard let data = fm.contents(atPath: root + "/" + path), let text = String(data: data, encoding: .utf8) else {
        FileHandle.standardError.write(Data("embed-sql: \(root)/\(path) is not UTF-8 text\n".utf8))
        exit(1)
    }
    swift += "        (\(literal(path)), \(literal(text))),\n"
}
swift += "    ]\n}\n"
// Rewriting an unchanged file would make the compiler rebuild RLSKit on every build.
if let old = fm.contents(atPath: args[2]), old == Data(swift.utf8) { exit(0) }
do { try swift.write(toFile: args[2], atomically: true, encoding: .utf8) } catch {
    FileHandle.standardError.write(Data("embed-sql: cannot write \(args[2]): \(error)\n".utf8))
    exit(1)
}
