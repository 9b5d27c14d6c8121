import DaemonState
import FileStore
import Foundation
import Logging
import MQTT
import MQTTPayloads

extension MQTTService {
    /// A follower's side of the connection (`[mqtt] follow`): subscribes to the followed forecastd's report and
    /// status at every connection, and hands the state what it hears. A message that is not a good report is
    /// refused, said with the topic and what is wrong, and changes nothing: the last good report stays.
    struct Follower {
        let service: MQTTService
        let connection: MQTTConnection
        /// The followed forecastd's topics.
        let topics: ShareTopics
        let setup: Setup
        var connected = false
        var outage = Outage()

        var logger: Logger { service.logger }

        init(service: MQTTService, connection: MQTTConnection, topics: ShareTopics, setup: Setup) {
            self.service = service
            self.connection = connection
            self.topics = topics
            self.setup = setup
        }

        /// Handles one signal; returns how long to wait before the next connection attempt when one is due.
        mutating func handle(_ signal: MQTTService.Signal) async -> TimeInterval? {
            switch signal {
            case .reconnectDue, .report, .settings, .event(.delivered):
                return nil
            case .connectFailed(let error):
                return lost("The MQTT broker cannot be reached; retrying with backoff.", reason: error.description)
            case .event(.connected):
                connected = true
                outage = Outage()
                logger.info(
                    "Connected to the MQTT broker; following another forecastd's report.",
                    metadata: ["broker": "\(setup.options.brokerDescription)", "follow": "\(topics.base)"])
                // Retained: the broker sends the last report and status at once (again after every reconnect,
                // which the state takes as nothing new when it holds the same report).
                for filter in [topics.report, topics.status] {
                    do throws(MQTTError) {
                        try await connection.subscribe(filter, qos: 1)
                    } catch {
                        logger.debug("A subscription could not be sent.", metadata: ["topic": "\(filter)", "error": "\(error)"])
                    }
                }
                return nil
            case .event(.connectionRefused(let reason)):
                return lost("The MQTT broker refused this client; retrying with backoff.", reason: reason)
            case .event(.disconnected(let reason)):
                return lost(
                    "The connection to the MQTT broker ended; the last good report is kept, reconnecting with backoff.",
                    reason: reason ?? "asked")
            case .event(.oversized(let topic, let bytes)):
                refuse(
                    topic: topic,
                    reason: "is \(ByteCount(bytes)), more than the \(ByteCount(SharedReport.maximumBytes)) allowed")
                return nil
            case .event(.message(let message)):
                await take(message)
                return nil
            }
        }

        private mutating func lost(_ message: Logger.Message, reason: String) -> TimeInterval? {
            connected = false
            return outage.lost(message, reason: reason, broker: setup.options.brokerDescription, service: service)
        }

        /// A message on the report or the status topic.
        private func take(_ message: MQTTMessage) async {
            if message.topic == topics.status {
                switch String(decoding: message.payload, as: UTF8.self) {
                case ShareStatus.online.rawValue: await service.state.followedPublisher(online: true)
                case ShareStatus.offline.rawValue: await service.state.followedPublisher(online: false)
                // The retained status emptied: nothing is said about the publisher.
                case "": return
                default:
                    refuse(topic: message.topic, reason: "is neither \"online\" nor \"offline\"")
                }
                return
            }
            guard message.topic == topics.report else { return }
            do throws(SharedReportRefusal) {
                switch try SharedReport.decode(message.payload, now: Date()) {
                case .report(let report):
                    logger.debug(
                        "Took the followed forecastd's report.",
                        metadata: ["topic": "\(message.topic)", "published_at": "\(report.publishedAt)"])
                    await service.state.followed(report)
                case .removed:
                    logger.notice(
                        "The followed forecastd took its report away (MQTT turned off there?); the last good report is kept.",
                        metadata: ["topic": "\(message.topic)"])
                }
            } catch {
                refuse(topic: message.topic, reason: error.reason)
            }
        }

        private func refuse(topic: String, reason: String) {
            logger.warning(
                "A message on the followed topic was refused; the last good report is kept.",
                metadata: ["topic": "\(topic)", "reason": "The message \(reason)."])
        }

        /// MQTT's goodbye (nothing of this daemon's is retained on the broker; a follower's settings are read at
        /// start).
        func goodbye() async {
            guard connected else { return }
            await connection.disconnect()
        }
    }
}
