import Control
import ForecastModel
import Foundation
import Rendering
import TestSupport

/// `config/forecastd.toml` as forecastctl creates a settings file in the tests' environment: the
/// documented file holding the settings in effect, which differ from the defaults only in that
/// `FORECASTD_IP_GEOLOCATION=off` and `FORECASTD_WIFI_GEOLOCATION=off` turn IP and Wi-Fi geolocation off.
let documentedInTestEnvironment: String = {
    var documented = try! String(
        contentsOf: Fixtures.repositoryRoot.appendingPathComponent("config/forecastd.toml"), encoding: .utf8)
    for table in ["[location.wifi]\n", "[location.ip]\n"] {
        let start = documented.range(of: table)!
        let enabled = documented.range(of: "\nenabled = true\n", range: start.upperBound..<documented.endIndex)!
        documented = documented.replacingCharacters(in: enabled, with: "\nenabled = false\n")
    }
    return documented
}()

/// A settings file pointing the daemon at test peers.
func settingsText(
    gpsdPort: Int?, openMeteoURL: URL, pin: (Double, Double, String?)? = nil, mode: String = "auto",
    units: String = "metric", output: (statusFile: String, socket: String)? = nil,
    staticFile: String = "", ipServices: [(name: String, url: URL)] = [], metNorwayURL: URL? = nil,
    alerts: String? = nil, wifiURL: URL? = nil
) -> String {
    // A test must never read the machine's /etc/geolocation or ask a real IP geolocation service:
    // both are off unless the test names its own.
    var ipSettings = "enabled = \(!ipServices.isEmpty)\n"
    if !ipServices.isEmpty {
        ipSettings += "services = [\(ipServices.map { "\"\($0.name)\"" }.joined(separator: ", "))]\n"
        for service in ipServices {
            ipSettings += "\(service.name.replacingOccurrences(of: "-", with: "_"))_url = \"\(service.url.absoluteString)\"\n"
        }
    }
    let order = metNorwayURL == nil ? #""open-meteo""# : #""open-meteo", "met-norway""#
    var text = """
        units = "\(units)"
        refresh_minutes = 15

        [location]
        mode = "\(mode)"
        static_file = "\(staticFile)"

        [location.ip]
        \(ipSettings)
        [location.wifi]
        enabled = \(wifiURL != nil)
        url = "\(wifiURL?.absoluteString ?? "http://127.0.0.1:9/v1/geolocate")"

        [location.gpsd]
        enabled = \(gpsdPort != nil)
        host = "127.0.0.1"
        port = \(gpsdPort ?? 2947)
        max_fix_age_seconds = 120

        [providers]
        # Only the replayed service: a test must never reach a real one.
        order = [\(order)]

        [providers.open_meteo]
        url = "\(openMeteoURL.absoluteString)"
        timeout_seconds = 5

        """
    if let metNorwayURL {
        // MET Norway second, on the replay server too.
        text += """

            [providers.met_norway]
            url = "\(metNorwayURL.absoluteString)"
            contact = "forecastd-tests@example.org"
            timeout_seconds = 5

            """
    }
    if let pin {
        text += """

            [location.pin]
            latitude = \(pin.0)
            longitude = \(pin.1)

            """
        if let name = pin.2 { text += "name = \"\(name)\"\n" }
    }
    // Warnings and the air only on the replay server, where a test names them: never a real service.
    text += alerts ?? """

        [warnings]
        enabled = false

        [air]
        enabled = false

        """
    if let output {
        text += """

            [output]
            status_file = "\(output.statusFile)"
            socket = "\(output.socket)"

            """
    }
    return text
}

/// A port on which nothing listens, below the ephemeral range so that no replay server of a test running in
/// parallel is given it (an ephemeral port bound and released here could be).
func closedPort() throws -> Int {
    try GPSFake.freePort()
}

/// The report the daemon serves on its socket right now.
func socketReport(_ path: String) async throws -> Report {
    try ReportJSON.decode(await socketReportLine(path))
}

/// The report line as the socket sends it. The client blocks, so it runs off the concurrency pool.
func socketReportLine(_ path: String) async throws -> String {
    try await onOwnThread {
        let client = try ControlClient(socketPath: path)
        return try client.request("report")
    }
}

/// The daemon's answer to a request that changes it (`units wind kn`, `unpin`, `set ...`) on its socket.
func socketAnswer(_ line: String, _ daemon: DaemonProcess) async throws -> ControlAnswer {
    let path = daemon.socketPath
    let answer = try await onOwnThread { try ControlClient(socketPath: path).request(line) }
    return try JSONDecoder().decode(ControlAnswer.self, from: Data(answer.utf8))
}

/// The report in the status file at `path` as the socket would send it: the file's line without its `written`
/// stamp (which only the file carries), nil when there is no readable report.
func statusFileReportLine(_ path: String) -> String? {
    guard let text = try? String(contentsOfFile: path, encoding: .utf8), text.hasSuffix("\n"),
        var report = try? ReportJSON.decode(String(text.dropLast()))
    else { return nil }
    report.written = nil
    return ReportJSON.line(report)
}

/// The recorded Samara response (metric, m/s wind, UTC+4), moved to today so its days are current.
func samaraResponse() throws -> String {
    let text = try String(
        contentsOf: Fixtures.url("open-meteo/forecast-samara-ru-current-daily-metric-ms-recorded-2026-09-15.json"),
        encoding: .utf8)
    return RecordedForecast.rebased(text, firstDate: "2026-09-15", to: RecordedForecast.today(utcOffsetSeconds: 14_400))
}

/// Settings that pin Samara (53.2 N 50.15 E, named `name`) with every position source off and Open-Meteo at
/// `server`, which from now on answers `/forecast` with the recorded Samara response; `extra` lines (a
/// `[display]` table, cities, ...) follow them.
func pinnedAtSamaraSettings(
    server: ReplayServer, name: String? = nil, units: String = "metric", extra: String = ""
) throws -> String {
    server.setRoute(
        path: "/forecast",
        ReplayResponse(status: 200, headers: ["Content-Type": "application/json"], body: try samaraResponse()))
    return settingsText(
        gpsdPort: nil, openMeteoURL: server.baseURL.appendingPathComponent("forecast"), pin: (53.2, 50.15, name),
        mode: "pinned", units: units) + extra
}

/// A daemon pinned at Samara on ``pinnedAtSamaraSettings(server:name:units:extra:)``, in `directory` (a new one
/// when nil) with `environment` added to its own, returned once its socket reports the first forecast.
func startPinnedAtSamara(
    server: ReplayServer, units: String = "metric", extra: String = "", in directory: URL? = nil,
    environment: [String: String] = [:]
) async throws -> DaemonProcess {
    let settings = try pinnedAtSamaraSettings(server: server, units: units, extra: extra)
    let daemon = try DaemonProcess.start(config: settings, in: directory, environment: environment)
    try await daemon.waitForSocket()
    try await daemon.wait(for: "the first forecast") { try await socketReport(daemon.socketPath).current != nil }
    return daemon
}

/// Each thread of `pid` as the kernel lists it (`/proc/PID/task`): its name (comm, 15 bytes) and the system call it
/// is blocked in ("running" when none).
func kernelThreads(of pid: Int32) -> [(name: String, syscall: String)] {
    let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
    return tasks.compactMap { task in
        guard let comm = try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/comm", encoding: .utf8),
            let syscall = try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/syscall", encoding: .utf8)
        else { return nil }
        return (
            comm.trimmingCharacters(in: .whitespacesAndNewlines),
            String(syscall.split(separator: " ").first ?? "running")
        )
    }
}

/// A laptop as the Wi-Fi tests need it: dbusmock's NetworkManager on `bus` (a private system bus) with a Wi-Fi
/// device and two access points (`more` adds others), beaconDB's recorded answer and the Samara forecast replayed,
/// and a daemon pinned at Montevideo with Wi-Fi positioning on, started in `directory` and waited for until its
/// report's position comes from Wi-Fi with a forecast.
struct WiFiLaptop {
    let manager: NetworkManagerMock
    let server: ReplayServer
    let daemon: DaemonProcess

    static func start(
        on bus: PrivateDBusDaemon, in directory: URL,
        more: (NetworkManagerMock, _ device: String) async throws -> Void = { _, _ in }
    ) async throws -> WiFiLaptop {
        let manager = try await NetworkManagerMock.start(on: bus)
        let wlan0 = try await manager.addWiFiDevice()
        try await manager.addAccessPoint(to: wlan0, name: "a", ssid: "Home", bssid: "00:25:9C:CF:1C:AC", strength: 80)
        try await manager.addAccessPoint(to: wlan0, name: "b", ssid: "Cafe", bssid: "84:1B:5E:00:00:01", strength: 40)
        try await more(manager, wlan0)
        let server = try await ReplayServer.start()
        server.setRoute(
            path: "/forecast",
            ReplayResponse(status: 200, headers: ["Content-Type": "application/json"], body: try samaraResponse()))
        server.setRoute(path: "/v1/geolocate", try .fixture("geolocation/beacondb-200-position.json"))
        let config = settingsText(
            gpsdPort: try closedPort(), openMeteoURL: server.baseURL.appendingPathComponent("forecast"),
            pin: (-34.9011, -56.1645, "Montevideo"), wifiURL: server.url("/v1/geolocate"))
        let daemon = try DaemonProcess.start(
            config: config, in: directory, environment: ["DBUS_SYSTEM_BUS_ADDRESS": bus.address])
        try await daemon.waitForSocket()
        try await daemon.wait(for: "the Wi-Fi position with a forecast") {
            let report = try await socketReport(daemon.socketPath)
            return report.location?.source == "wifi" && report.current != nil
        }
        return WiFiLaptop(manager: manager, server: server, daemon: daemon)
    }
}
