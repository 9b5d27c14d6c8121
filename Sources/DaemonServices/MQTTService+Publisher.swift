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
        var outage = Outage()
        var latest: PublishedReport?
        /// The units and language the discovery configs were published in since the connection.
        var discovered: (units: ReportUnits, language: LanguageChoice)?
        /// The cities whose discovery configs were published since the connection.
        var discoveredCities: Set<String> = []
        /// With discovery off, the cities whose discovery configs were emptied since the connection.
        var emptiedCities: Set<String> = []
        /// The cities whose reports this daemon has published (kept across reconnects): one that leaves the list
        /// has its retained report and its discovery configs emptied.
        var publishedCities: Set<String> = []

        var logger: Logger { service.logger }

        init(service: MQTTService, connection: MQTTConnection, setup: Setup) {
            self.service = service
            self.connection = connection
            self.setup = setup
        }

        /// Handles one signal; returns how long to wait before the next connection attempt when one is due.
        mutating func handle(_ signal: MQTTService.Signal) async -> TimeInterval? {
            switch signal {
            case .reconnectDue, .settings:
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
                outage = Outage()
                discovered = nil
                discoveredCities = []
                emptiedCities = []
                logger.info(
                    "Connected to the MQTT broker.",
                    metadata: ["broker": "\(setup.options.brokerDescription)", "topic": "\(setup.topics.base)"])
                await publish(setup.topics.status, Array(ShareStatus.online.rawValue.utf8))
                if !setup.settings.discovery {
                    for removal in setup.discovery.removals(city: nil) { await publish(removal.topic, removal.payload) }
                }
                await publishReport()
                return nil
            case .connectionRefused(let reason):
                return lost("The MQTT broker refused this client; retrying with backoff.", reason: reason)
            case .disconnected(let reason):
                connected = false
                return lost("The connection to the MQTT broker ended; reconnecting with backoff.", reason: reason ?? "asked")
            case .message, .oversized, .delivered:
                // Nothing is subscribed to while publishing; a confirmation is awaited only when leaving.
                return nil
            }
        }

        private mutating func lost(_ message: Logger.Message, reason: String) -> TimeInterval? {
            connected = false
            return outage.lost(message, reason: reason, broker: setup.options.brokerDescription, service: service)
        }

        /// The report (and the discovery configs when the units or the language changed), retained; then the
        /// listed cities'.
        private mutating func publishReport() async {
            guard let latest else { return }
            let settings = service.state.settings.value
            let now = Date()
            await publishShared(setup.topics.report, report: latest.report, inputs: latest.inputs, now: now)
            let language = settings.display.language
            let changed = discovered.map { $0.units != latest.report.units || $0.language != language } ?? true
            if changed { discoveredCities = [] }
            if setup.settings.discovery, changed {
                await publishConfigs { phrases in
                    try setup.discovery.configs(units: latest.report.units, phrases: phrases)
                }
                discovered = (latest.report.units, language)
            }
            await publishCities(latest, now: now)
        }

        /// Each listed city's report under `TOPIC/cities/ID/report` with its discovery configs; a city no longer
        /// listed has both emptied.
        private mutating func publishCities(_ latest: PublishedReport, now: Date) async {
            let cities = latest.report.cities ?? []
            for (city, inputs) in zip(cities, latest.cityInputs) {
                await publishShared(setup.topics.cityReport(city.id), report: city.report, inputs: inputs, now: now)
                publishedCities.insert(city.id)
                if setup.settings.discovery, !discoveredCities.contains(city.id) {
                    await publishConfigs { phrases in
                        try setup.discovery.configs(city: (city.id, city.name), units: city.report.units, phrases: phrases)
                    }
                    discoveredCities.insert(city.id)
                } else if !setup.settings.discovery, !emptiedCities.contains(city.id) {
                    // What a run with discovery on left for this city goes, as the configs for here do at the
                    // connection: Home Assistant removes the city's device.
                    for removal in setup.discovery.removals(city: city.id) { await publish(removal.topic, removal.payload) }
                    emptiedCities.insert(city.id)
                }
            }
            let listed = Set(cities.map(\.id))
            for gone in publishedCities.subtracting(listed).sorted() {
                await publish(setup.topics.cityReport(gone), [])
                for removal in setup.discovery.removals(city: gone) { await publish(removal.topic, removal.payload) }
                publishedCities.remove(gone)
                discoveredCities.remove(gone)
                emptiedCities.remove(gone)
            }
        }

        private func publishShared(_ topic: String, report: Report, inputs: ReportInputs, now: Date) async {
            let shared = SharedReport(
                publishedAt: now,
                publisher: SharedPublisher(
                    topic: setup.topics.base, version: ForecastdVersion.current,
                    refreshSeconds: Int(service.state.settings.value.refreshSeconds),
                    staleAfterSeconds: Int(inputs.staleAfter)),
                model: SharedModel(inputs, now: now))
            do {
                await publish(topic, try shared.payload(report: report))
            } catch {
                logger.error("A report could not be encoded for MQTT.", metadata: ["topic": "\(topic)", "error": "\(error)"])
            }
        }

        private func publishConfigs(_ make: (Phrases) throws -> [HomeAssistantDiscovery.Message]) async {
            do {
                let configs = try make(service.state.settings.value.display.phrases(logger: logger))
                for config in configs { await publish(config.topic, config.payload) }
            } catch {
                logger.error("Home Assistant's discovery configs could not be encoded.", metadata: ["error": "\(error)"])
            }
        }

        private func publish(_ topic: String, _ payload: [UInt8], confirmed: Bool = false) async {
            do throws(MQTTError) {
                try await connection.publish(
                    MQTTMessage(topic: topic, payload: payload, retain: true, qos: 1), confirmed: confirmed)
            } catch {
                // The connection is going: its disconnection follows, and everything is published again after it.
                logger.debug("A message could not be published on MQTT.", metadata: ["topic": "\(topic)", "error": "\(error)"])
            }
        }

        /// On a graceful stop (`new` nil): `offline`; then, and after ``leave(for:)`` before a connection with the
        /// settings `new`, MQTT's goodbye (which keeps the broker from sending the will too).
        func goodbye(changingTo new: Settings.MQTT?) async {
            guard connected else { return }
            if new == nil { await publish(setup.topics.status, Array(ShareStatus.offline.rawValue.utf8)) }
            await connection.disconnect()
        }

        /// Before a connection with the settings `new`: what would linger emptied, then `offline`, confirmed; true
        /// when there is a connection to say it on (the confirmation, ``MQTTEvent/delivered``, is then awaited).
        func leave(for new: Settings.MQTT) async -> Bool {
            guard connected else { return false }
            await emptyLingering(new)
            await publish(setup.topics.status, Array(ShareStatus.offline.rawValue.utf8), confirmed: true)
            return true
        }

        /// Before a connection with the settings `new`: empties the retained messages nothing would replace, so
        /// that neither followers nor Home Assistant keep ghosts. The reports (here and the cities') when the topic
        /// moves or MQTT is turned off; the discovery configs when, besides, they move to another prefix or are no
        /// longer wanted.
        private func emptyLingering(_ new: Settings.MQTT) async {
            let base = new.topic ?? ShareTopics.defaultBase(hostname: MQTTService.hostname())
            let gone = !new.enabled || base != setup.topics.base
            let cities = publishedCities.union(discoveredCities).sorted()
            if gone {
                await publish(setup.topics.report, [])
                for city in cities { await publish(setup.topics.cityReport(city), []) }
            }
            let configsGone = gone || !new.discovery || new.discoveryPrefix != setup.settings.discoveryPrefix
            guard setup.settings.discovery, configsGone else { return }
            for city in [nil] + cities.map(Optional.some) {
                for removal in setup.discovery.removals(city: city) { await publish(removal.topic, removal.payload) }
            }
        }
    }
}

extension MQTTService {
    /// The reconnection's bookkeeping, the publisher's and the follower's alike.
    struct Outage {
        /// Whether the alarm is armed for a reconnect (a refusal and the disconnection after it arm it once).
        var reconnectArmed = false
        /// Failed attempts since the last connection.
        var attempt = 0
        /// Whether this outage was logged (once per outage at warning level).
        var logged = false

        /// Notes a failure: logged once per outage (then at debug level), and the wait before the next attempt,
        /// nil when one is armed already.
        mutating func lost(_ message: Logger.Message, reason: String, broker: String, service: MQTTService)
            -> TimeInterval?
        {
            let metadata: Logger.Metadata = [
                "broker": "\(broker)", "reason": "\(reason)", "attempt": "\(attempt + 1)",
            ]
            if logged {
                service.logger.debug(message, metadata: metadata)
            } else {
                service.logger.warning(message, metadata: metadata)
                logged = true
            }
            guard !reconnectArmed else { return nil }
            reconnectArmed = true
            let wait = service.backoff.delay(attempt: attempt, random: Double.random(in: 0..<1))
            attempt += 1
            let (whole, attoseconds) = wait.components
            return Double(whole) + Double(attoseconds) / 1e18
        }
    }
}
