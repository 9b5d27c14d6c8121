import Foundation
import TestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// `forecastctl pick` running as a child process in a test's private home: the address it printed first,
/// then its exit status and everything it wrote.
final class PickProcess: @unchecked Sendable {
    // @unchecked: the process and paths are set once; the test reads them from one task at a time.
    let process: Process
    let url: URL
    private let outPath: String
    private let errPath: String

    var port: Int { url.port ?? 0 }
    var token: String { url.pathComponents[1] }

    /// Starts `forecastctl pick ARGUMENTS` and waits for the address on its first line.
    static func start(
        _ arguments: [String], environment: [String: String], in directory: URL, timeout: Duration = .seconds(20)
    ) async throws -> PickProcess {
        let name = "pick-\(UInt32.random(in: 0...UInt32.max))"
        let outPath = directory.path + "/\(name).out"
        let errPath = directory.path + "/\(name).err"
        _ = FileManager.default.createFile(atPath: outPath, contents: nil)
        _ = FileManager.default.createFile(atPath: errPath, contents: nil)
        let process = Process()
        process.executableURL = DaemonProcess.binDirectory.appendingPathComponent("forecastctl")
        process.arguments = ["pick"] + arguments
        process.environment = environment
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle(forWritingAtPath: outPath)
        process.standardError = FileHandle(forWritingAtPath: errPath)
        try process.run()
        let deadline = ContinuousClock.now.advanced(by: timeout)
        while ContinuousClock.now < deadline {
            let text = (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? ""
            if let line = text.split(separator: "\n", omittingEmptySubsequences: false).first, text.contains("\n"),
                let url = URL(string: String(line)), url.scheme == "http"
            {
                return PickProcess(process: process, url: url, outPath: outPath, errPath: errPath)
            }
            if !process.isRunning { break }
            try await Task.sleep(for: .milliseconds(20))
        }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        throw TestFailure(
            "forecastctl pick printed no address: status \(process.terminationStatus), stdout "
                + "\((try? String(contentsOfFile: outPath, encoding: .utf8)) ?? ""), stderr "
                + "\((try? String(contentsOfFile: errPath, encoding: .utf8)) ?? "")")
    }

    private init(process: Process, url: URL, outPath: String, errPath: String) {
        self.process = process
        self.url = url
        self.outPath = outPath
        self.errPath = errPath
    }

    deinit {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    var stdout: String { (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? "" }
    var stderr: String { (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? "" }

    /// Waits for forecastctl to exit by itself and returns its status and output.
    func waitForExit(timeout: Duration = .seconds(20)) async throws -> (status: Int32, stdout: String, stderr: String) {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        while process.isRunning, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            throw TestFailure("forecastctl pick did not exit within \(timeout); stderr: \(stderr)")
        }
        process.waitUntilExit()
        return (process.terminationStatus, stdout, stderr)
    }

    /// A request to the page's server as the page makes it (the page's Origin), on a socket of its own;
    /// the status and body of the answer.
    func request(_ method: String, _ path: String, body: String = "", headers extra: [(String, String)]? = nil)
        async throws -> (status: Int, body: String)
    {
        let port = self.port
        var headers = extra ?? [("Origin", "http://127.0.0.1:\(port)")]
        if !body.isEmpty { headers.append(("Content-Type", "application/json")) }
        let target = "/\(token)/\(path)"
        let sent = headers
        return try await onOwnThread {
            try PlainHTTP.exchange(port: port, method: method, target: target, headers: sent, body: body)
        }
    }
}

/// One HTTP/1.1 exchange on a blocking socket (`Connection: close`), for tests that talk to the picker
/// without a browser.
enum PlainHTTP {
    static func exchange(port: Int, method: String, target: String, headers: [(String, String)], body: String) throws
        -> (status: Int, body: String)
    {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw TestFailure("socket: errno \(errno)") }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw TestFailure("connect to \(port): errno \(errno)") }
        var limit = timeval(tv_sec: 20, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        var text = "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
        for (name, value) in headers { text += "\(name): \(value)\r\n" }
        text += "Content-Length: \(body.utf8.count)\r\n\r\n" + body
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count <= 0 { break }
            received += buffer[0..<count]
        }
        let answer = String(decoding: received, as: UTF8.self)
        guard let statusLine = answer.split(separator: "\r\n").first, let status = Int(statusLine.split(separator: " ")[1]),
            let bodyStart = answer.range(of: "\r\n\r\n")
        else { throw TestFailure("no HTTP answer from the picker: \(answer)") }
        return (status, String(answer[bodyStart.upperBound...]))
    }
}
