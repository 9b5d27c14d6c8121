import AsyncHTTPClient
import Foundation

extension ReplayServer {
    /// An HTTP client configured as the daemon's (Sources/forecastd/Composition.swift): on NIO's singleton loops,
    /// not retrying a connection that fails, so a refused or reset connection is reported at once.
    public static func makeClient() -> HTTPClient {
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool.retryConnectionEstablishment = false
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }

    /// Starts a replay server and a client (``makeClient()``), runs `body` with both, and shuts both down whether
    /// `body` returns or throws.
    public static func withClient<T>(
        host: String = "127.0.0.1", _ body: (ReplayServer, HTTPClient) async throws -> T
    ) async throws -> T {
        let server = try await ReplayServer.start(host: host)
        let client = makeClient()
        do {
            let result = try await body(server, client)
            try await client.shutdown()
            try await server.shutdown()
            return result
        } catch {
            try? await client.shutdown()
            try? await server.shutdown()
            throw error
        }
    }

    /// Starts a replay server, runs `body` with it, and shuts it down whether `body` returns or throws.
    public static func with<T>(host: String = "127.0.0.1", _ body: (ReplayServer) async throws -> T) async throws -> T {
        let server = try await ReplayServer.start(host: host)
        do {
            let result = try await body(server)
            try await server.shutdown()
            return result
        } catch {
            try? await server.shutdown()
            throw error
        }
    }
}
