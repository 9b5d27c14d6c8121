import Foundation

/// What an ``MQTTClient`` connects to and how: the broker, TLS, who it is, its last will, the keep-alive and the
/// largest message it accepts.
package struct MQTTOptions: Sendable {
    /// The broker's host name or address (an IPv6 address without brackets).
    package var host: String
    /// The broker's TCP port (1883 for `mqtt://`, 8883 for `mqtts://` by convention).
    package var port: Int
    /// TLS, or nil for plain TCP.
    package var tls: TLS?
    /// The client identifier the broker knows this connection by; two clients with one id push each other off.
    package var clientID: String
    /// The user name, or nil for an anonymous connection.
    package var username: String?
    /// The password that goes with ``username``.
    package var password: Secret?
    /// What the broker publishes for this client when its connection ends without a goodbye.
    package var will: MQTTMessage?
    /// Seconds between packets after which libmosquitto sends a PINGREQ (5 to 65535). The broker drops the
    /// connection after one and a half of these without a packet, and a connection that has not been accepted
    /// within one of these is given up.
    package var keepAliveSeconds: Int
    /// The largest message payload accepted, in bytes. The broker is told the largest packet this client takes
    /// (MQTT 5's Maximum Packet Size: this plus room for the topic), so a conforming broker never sends a larger
    /// one; a larger one that comes anyway is refused before its payload is copied (``MQTTEvent/oversized(topic:bytes:)``).
    package var maximumMessageBytes: Int
    /// How many events wait unread before the oldest are dropped (``MQTTClient/events``).
    package var eventBuffer: Int

    package init(
        host: String, port: Int, tls: TLS? = nil, clientID: String, username: String? = nil, password: Secret? = nil,
        will: MQTTMessage? = nil, keepAliveSeconds: Int = 60, maximumMessageBytes: Int = 1 << 20, eventBuffer: Int = 64
    ) {
        self.host = host
        self.port = port
        self.tls = tls
        self.clientID = clientID
        self.username = username
        self.password = password
        self.will = will
        self.keepAliveSeconds = keepAliveSeconds
        self.maximumMessageBytes = maximumMessageBytes
        self.eventBuffer = eventBuffer
    }

    /// How the broker's certificate is checked; its host name always is.
    package enum TLS: Sendable, Hashable {
        /// The system's CA store (OpenSSL's default paths: /etc/ssl/certs on Debian).
        case systemStore
        /// The CA certificates of a PEM file, and no others.
        case caFile(String)
    }

    /// A password: kept out of every description, log line and failure message.
    package struct Secret: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible {
        package let value: String
        package init(_ value: String) { self.value = value }
        package var description: String { "(secret)" }
        package var debugDescription: String { "(secret)" }
    }

    /// The broker as people read it: `mqtts://host:8883`.
    package var brokerDescription: String {
        let bracketed = host.contains(":") ? "[\(host)]" : host
        return "\(tls == nil ? "mqtt" : "mqtts")://\(bracketed):\(port)"
    }
}

/// One MQTT message, sent or received.
package struct MQTTMessage: Sendable, Hashable {
    package var topic: String
    package var payload: [UInt8]
    /// Whether the broker keeps it for later subscribers (sent), or sent it from what it kept (received).
    package var retain: Bool
    /// 0 (at most once) or 1 (at least once).
    package var qos: Int

    package init(topic: String, payload: [UInt8], retain: Bool = false, qos: Int = 0) {
        self.topic = topic
        self.payload = payload
        self.retain = retain
        self.qos = qos
    }

    package init(topic: String, text: String, retain: Bool = false, qos: Int = 0) {
        self.init(topic: topic, payload: Array(text.utf8), retain: retain, qos: qos)
    }

    /// The payload as UTF-8 text, nil when it is not valid UTF-8.
    package var text: String? { String(validating: payload, as: UTF8.self) }
}

/// What a connection says, in the order libmosquitto said it. Yielded from inside ``MQTTClient``'s steps, on the
/// thread that calls them.
package enum MQTTEvent: Sendable, Hashable {
    /// The broker accepted the connection (its CONNACK): subscriptions and retained messages go out now.
    case connected
    /// The broker answered the CONNECT with a refusal (wrong password, not authorised, client id refused).
    case connectionRefused(reason: String)
    /// A message on a subscribed topic.
    case message(MQTTMessage)
    /// A message larger than ``MQTTOptions/maximumMessageBytes`` arrived and was dropped uncopied.
    case oversized(topic: String, bytes: Int)
    /// The connection ended: `reason` is nil when this client asked, else why (connection lost, keep-alive not
    /// answered, TLS refused, the broker's own reason).
    case disconnected(reason: String?)
    /// The broker acknowledged a message published `confirmed` (its PUBACK): that message and every one queued
    /// before it reached the broker, so a goodbye after it loses nothing.
    case delivered
}

/// A libmosquitto call that failed, with the library's sentence for it.
package struct MQTTError: Error, Sendable, Hashable, CustomStringConvertible {
    /// libmosquitto's `MOSQ_ERR_*` code.
    package var code: Int32
    package var description: String

    package init(code: Int32, description: String) {
        self.code = code
        self.description = description
    }
}
