import Control
import DaemonState
import ForecastModel
import Foundation
import Localization
import Logging
import MQTT
import MQTTPayloads
import Settings

extension MQTTService {
    /// The connection's state as the service's loop sees it, and what it publishes.
    struct Publisher {
        let service: MQTTService
        let connection: MQTTConnection
        let setup: Setup
        var connected = false
        /// Whether the alarm is armed for a reconnect (a refusal and the disconnection after it arm it once).
        var reconnectArmed = false
        /// Failed attempts since the last connection.
        var attempt = 0
        /// Whether this outage was logged (once per outage at warning level).
        var outageLogged = false
        var latest: PublishedReport?
        /// The units and language the discovery configs were published in since the connection.
        var discovered: (units: ReportUnits, language: LanguageChoice)?

        var logger: Logger { service.logger }

        init(service: MQTTService, connection: MQTTConnection, setup: Setup) {
            self.service = service
            self.connection = connection
            self.setup = setup
        }

        /// Handles one signal; returns how long to wait before the next connection attempt when one is due.
        mutating func handle(_ signal: MQTTService.Signal) async -> TimeInterval? {
            switch signal {
            case .reconnectDue:
                return nil
            case .report(let report):
                latest = report
                if connected { await publishReport() }
                return nil
            case .connectFailed(let error):
                return lost("The MQTT broker cannot be reached; retrying with backoff.", reason: error.description)
            case .event(let event):
                return await handle(event)
            }
        }

        private mutating func handle(_ event: MQTTEvent) async -> TimeInterval? {
            switch event {
            case .connected:
                connected = true
                reconnectArmed = false
                attempt = 0
                outageLogged = false
                discovered = nil
                logger.info(
                    "Connected to the MQTT broker.",
                    metadata: ["broker": "\(setup.options.brokerDescription)", "topic": "\(setup.topics.base)"])
                await publish(setup.topics.status, Array(ShareStatus.online.rawValue.utf8))
                if !service.settings.discovery {
                    for removal in setup.discovery.removals(city: nil) { await publish(removal.topic, removal.payload) }
                }
                await publishReport()
                return nil
            case .connectionRefused(let reason):
                return lost("The MQTT broker refused this client; retrying with backoff.", reason: reason)
            case .disconnected(let reason):
                connected = false
                return lost("The connection to the MQTT broker ended; reconnecting with backoff.", reason: reason ?? "asked")
            case .message, .oversized:
                // Nothing is subscribed to while publishing.
                return nil
            }
        }

        /// Notes a failure: logged once per outage (then at debug level), and the wait before the next attempt,
        /// nil when one is armed already.
        private mutating func lost(_ message: Logger.Message, reason: String) -> TimeInterval? {
            connected = false
            let metadata: Logger.Metadata = [
                "broker": "\(setup.options.brokerDescription)", "reason": "\(reason)", "attempt": "\(attempt + 1)",
            ]
            if outageLogged {
                logger.debug(message, metadata: metadata)
            } else {
                logger.warning(message, metadata: metadata)
                outageLogged = true
            }
            guard !reconnectArmed else { return nil }
            reconnectArmed = true
            let wait = service.backoff.delay(attempt: attempt, random: Double.random(in: 0..<1))
            attempt += 1
            let (whole, attoseconds) = wait.components
            return Double(whole) + Double(attoseconds) / 1e18
        }

        /// The report (and the discovery configs when the units or the language changed), retained.
        private mutating func publishReport() async {
            guard let latest else { return }
            let settings = service.state.settings.value
            let now = Date()
            let shared = SharedReport(
                publishedAt: now,
                publisher: SharedPublisher(
                    topic: setup.topics.base, version: ForecastdVersion.current,
                    refreshSeconds: Int(settings.refreshSeconds),
                    staleAfterSeconds: Int(latest.inputs.staleAfter)),
                model: SharedModel(latest.inputs, now: now))
            do {
                await publish(setup.topics.report, try shared.payload(report: latest.report))
            } catch {
                logger.error("The report could not be encoded for MQTT.", metadata: ["error": "\(error)"])
            }
            let language = settings.display.language
            guard service.settings.discovery,
                discovered.map({ $0.units != latest.report.units || $0.language != language }) ?? true
            else { return }
            do {
                let configs = try setup.discovery.configs(
                    units: latest.report.units, phrases: settings.display.phrases(logger: logger))
                for config in configs { await publish(config.topic, config.payload) }
                discovered = (latest.report.units, language)
            } catch {
                logger.error("Home Assistant's discovery configs could not be encoded.", metadata: ["error": "\(error)"])
            }
        }

        private func publish(_ topic: String, _ payload: [UInt8]) async {
            do throws(MQTTError) {
                try await connection.publish(MQTTMessage(topic: topic, payload: payload, retain: true, qos: 1))
            } catch {
                // The connection is going: its disconnection follows, and everything is published again after it.
                logger.debug("A message could not be published on MQTT.", metadata: ["topic": "\(topic)", "error": "\(error)"])
            }
        }

        /// On a graceful stop: `offline`, then MQTT's goodbye (which keeps the broker from sending the will too).
        func goodbye() async {
            guard connected else { return }
            await publish(setup.topics.status, Array(ShareStatus.offline.rawValue.utf8))
            await connection.disconnect()
        }
    }
}
