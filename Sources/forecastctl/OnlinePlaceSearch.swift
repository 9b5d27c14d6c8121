import AsyncHTTPClient
import Control
import Fetching
import ForecastModel
import Foundation
import Gazetteer
import Logging
import WeatherProviders

/// `cities add` for places the offline gazetteer does not know, through Open-Meteo's place search
/// (only when `[providers.open_meteo] geocoding_url` is set).
enum OnlinePlaceSearch {
    /// The one place `text` names (`Hollywood, Maryland`, `Hollywood, US`): the part before the comma is
    /// searched, the part after it must match the country code, country or region.
    static func resolve(_ text: String, url: URL, timeout: Duration) throws -> Place {
        let parts = text.split(separator: ",", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
        let name = parts[0]
        let qualifier = parts.count > 1 ? parts[1] : nil
        note("\(text) is not known offline; searching online (\(url.host ?? url.absoluteString))")
        let found: [Place]
        do {
            found = try runBlocking {
                let client = HTTPClient(eventLoopGroupProvider: .singleton)
                let geocoder = OpenMeteoGeocoder(
                    url: url,
                    fetcher: .weather(
                        OpenMeteoGeocoder.providerName, client: client,
                        userAgent: UserAgent(version: ForecastdVersion.current).forecastctl, timeout: timeout,
                        logger: Logger(label: "forecastctl")))
                do {
                    let places = try await geocoder.search(name)
                    try await client.shutdownOffGlobalPool()
                    return places
                } catch {
                    try? await client.shutdownOffGlobalPool()
                    throw error
                }
            }
        } catch let error as ProviderError {
            throw CommandFailure(message: "the online search failed: \(error.message); nothing was added", exitCode: .requestFailed)
        }
        let matching = found.filter { place in
            guard let qualifier else { return true }
            let wanted = fold(qualifier)
            return [place.countryCode, place.country, place.admin1 ?? ""].map(fold).contains(wanted)
        }
        switch matching.count {
        case 1:
            note("\(text) is \(matching[0].summary) (found online)")
            return matching[0]
        case 0:
            throw CommandFailure(
                message: "no place named \"\(text)\" is known offline or online; nothing was added. Check the spelling, "
                    + "or give coordinates and --name",
                exitCode: .usage)
        default:
            let list = matching.prefix(10).map { "  " + $0.summary }.joined(separator: "\n")
            throw CommandFailure(
                message: "\"\(text)\" matches several places (found online); nothing was added. Name one more precisely, "
                    + "e.g. \"\(name), \(matching[0].admin1 ?? matching[0].countryCode)\", or give coordinates and --name:\n\(list)",
                exitCode: .usage)
        }
    }

    private static func fold(_ text: String) -> String {
        text.trimmingCharacters(in: .whitespaces).folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
    }
}

/// Runs async work to completion from a synchronous command (the main thread waits; the work runs on
/// the concurrency pool).
///
/// forecastctl is synchronous on purpose: its socket client blocks, and `watch`, which bars keep running
/// all session, waits in poll(). The online place search is its only async work (AsyncHTTPClient), so the
/// one command that needs it waits here rather than making every command, `watch` included, an
/// AsyncParsableCommand that brings up the concurrency runtime and its worker pool.
func runBlocking<T: Sendable>(_ work: @escaping @Sendable () async throws -> T) throws -> T {
    let box = BlockingResult<T>()
    let done = DispatchSemaphore(value: 0)
    Task {
        do { box.result = .success(try await work()) } catch { box.result = .failure(error) }
        done.signal()
    }
    done.wait()
    return try box.result!.get()
}

/// The result handed from the task to the waiting thread.
private final class BlockingResult<T: Sendable>: @unchecked Sendable {
    // Written once by the task before the semaphore is signalled, read after the wait: the semaphore orders the two.
    var result: Result<T, any Error>?
}
