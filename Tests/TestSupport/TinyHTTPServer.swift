import Foundation
import Synchronization

/// A loopback HTTP server for tests: records each request line and headers and answers with
/// `status(path)` (nil: never answers, holding the connection open; a 3xx carries `location`).
/// One request per connection; stops when the test drops it.
public final class TinyHTTPServer: Sendable {
    public struct Request: Sendable {
        public var method: String
        public var path: String
        public var headers: [String: String]
    }

    public let port: UInt16
    private let fd: Int32
    private let requests = Mutex<[Request]>([])
    private let status: @Sendable (String) -> Int?
    private let location: String
    private let held = Mutex<[Int32]>([])

    public init(location: String = "/", status: @escaping @Sendable (String) -> Int? = { _ in 200 }) throws {
        self.status = status
        self.location = location
        let s = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        addr.sin_port = 0
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(s, $0, len) }
        }
        guard bound == 0, listen(s, 16) == 0 else { close(s); throw POSIXError(.EADDRINUSE) }
        _ = withUnsafeMutablePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(s, $0, &len) }
        }
        port = UInt16(bigEndian: addr.sin_port)
        fd = s
        let thread = Thread { [self] in self.serve() }
        thread.start()
    }

    deinit {
        shutdown(fd, Int32(SHUT_RDWR)); close(fd)
        for c in held.withLock({ $0 }) { close(c) }
    }

    public var received: [Request] { requests.withLock { $0 } }
    public var url: String { "http://127.0.0.1:\(port)" }

    private func serve() {
        while true {
            let c = accept(fd, nil, nil)
            if c < 0 { return }
            var data = [UInt8]()
            var buf = [UInt8](repeating: 0, count: 4096)
            while !data.suffix(4).elementsEqual([13, 10, 13, 10]) {
                let n = read(c, &buf, buf.count)
                if n <= 0 { break }
                data += buf[0..<n]
            }
            let lines = String(decoding: data, as: UTF8.self).components(separatedBy: "\r\n")
            let first = lines.first?.split(separator: " ") ?? []
            var headers: [String: String] = [:]
            for l in lines.dropFirst() where l.contains(":") {
                let parts = l.split(separator: ":", maxSplits: 1)
                headers[parts[0].lowercased()] = parts[1].trimmingCharacters(in: .whitespaces)
            }
            let path = first.count > 1 ? String(first[1]) : ""
            requests.withLock {
                $0.append(Request(method: first.first.map(String.init) ?? "", path: path, headers: headers))
            }
            guard let code = status(path) else {
                held.withLock { $0.append(c) }
                continue
            }
            let redirect = (300...399).contains(code) ? "Location: \(location)\r\n" : ""
            let response = "HTTP/1.1 \(code) X\r\n\(redirect)Content-Length: 2\r\nConnection: close\r\n\r\n{}"
            _ = response.withCString { write(c, $0, strlen($0)) }
            close(c)
        }
    }
}
