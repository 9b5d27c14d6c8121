import Foundation
import Testing

@testable import ForecastModel

@Suite("Units per quantity: conversion, rounding, presets, Beaufort")
struct UnitsTests {
    @Test("a wind of 20 km/h reads 20 km/h, 11 kn, 5.6 m/s, 12 mph and Beaufort 4")
    func twentyKmh() {
        #expect(WindSpeedUnit.kmh.convert(fromKmh: 20) == 20)
        #expect(WindSpeedUnit.kn.convert(fromKmh: 20) == 11)
        #expect(WindSpeedUnit.ms.convert(fromKmh: 20) == 5.6)
        #expect(WindSpeedUnit.mph.convert(fromKmh: 20) == 12)
        #expect(WindSpeedUnit.bft.convert(fromKmh: 20) == 4)
        #expect(UnitWords.beaufortName(4) == "Moderate breeze")
    }

    @Test("knots, km/h and mph are whole; m/s has one decimal")
    func windRounding() {
        #expect(WindSpeedUnit.kmh.convert(fromKmh: 12.5) == 13)
        #expect(WindSpeedUnit.kn.convert(fromKmh: 12.5) == 7)  // 6.75
        #expect(WindSpeedUnit.mph.convert(fromKmh: 12.5) == 8)  // 7.77
        #expect(WindSpeedUnit.ms.convert(fromKmh: 12.5) == 3.5)  // 3.47
        #expect(WindSpeedUnit.ms.decimals == 1)
        #expect([WindSpeedUnit.kmh, .mph, .kn, .bft].allSatisfy { $0.decimals == 0 })
    }

    @Test(
        "Beaufort follows the WMO's limits in km/h, from calm to hurricane force",
        arguments: [
            (0.0, 0), (0.9, 0), (1, 1), (5.9, 1), (6, 2), (11.9, 2), (12.3, 3), (19.9, 3), (20, 4), (28.9, 4),
            (29, 5), (38.9, 5), (39, 6), (49.7, 6), (50, 7), (61.9, 7), (62, 8), (74.9, 8), (75, 9), (88.9, 9),
            (89, 10), (102.9, 10), (103, 11), (117.9, 11), (118, 12), (250, 12), (-.infinity, 0),
        ] as [(Double, Int)])
    func beaufort(kmh: Double, force: Int) {
        #expect(Beaufort.force(kmh: kmh) == force, "\(kmh) km/h")
    }

    @Test("Beaufort names every force from 0 to 12 and clamps what is outside")
    func beaufortNames() {
        #expect(UnitWords.beaufortName(0) == "Calm")
        #expect(UnitWords.beaufortName(3) == "Gentle breeze")
        #expect(UnitWords.beaufortName(12) == "Hurricane force")
        #expect(UnitWords.beaufortName(13) == "Hurricane force")
        #expect(Set((0...12).map(UnitWords.beaufortName)).count == 13)
        #expect(Beaufort.force(kmh: Beaufort.middleKmh(force: 7)) == 7)
    }

    @Test("pressure: hPa and mmHg whole, kPa one decimal, inHg two")
    func pressure() {
        #expect(PressureUnit.hpa.convert(fromHectopascals: 1013.25) == 1013)
        #expect(PressureUnit.inhg.convert(fromHectopascals: 1013.25) == 29.92)
        #expect(PressureUnit.mmhg.convert(fromHectopascals: 1013.25) == 760)
        #expect(PressureUnit.kpa.convert(fromHectopascals: 1013.25) == 101.3)
    }

    @Test("precipitation: mm one decimal, inches two; distances one decimal; temperatures")
    func others() {
        #expect(PrecipitationUnit.mm.convert(fromMillimetres: 2.34) == 2.3)
        #expect(PrecipitationUnit.in.convert(fromMillimetres: 2.34) == 0.09)
        #expect(DistanceUnit.mi.convert(fromKm: 10) == 6.2)
        #expect(DistanceUnit.km.convert(fromKm: 10.04) == 10)
        #expect(TemperatureUnit.fahrenheit.convert(fromCelsius: 20) == 68)
        #expect(TemperatureUnit.fahrenheit.celsius(from: 68) == 20)
    }

    @Test("the presets: uk is °C, mph, miles, mm, hPa; si is °C, m/s, km, mm, hPa")
    func presets() {
        let uk = UnitPreferences.uk
        #expect(
            [UnitWords.symbol(uk.temperature), UnitWords.symbol(uk.wind), UnitWords.symbol(uk.distance),
             UnitWords.symbol(uk.precipitation), UnitWords.symbol(uk.pressure)] == ["°C", "mph", "mi", "mm", "hPa"])
        let si = UnitPreferences.si
        #expect(
            [UnitWords.symbol(si.temperature), UnitWords.symbol(si.wind), UnitWords.symbol(si.distance),
             UnitWords.symbol(si.precipitation), UnitWords.symbol(si.pressure)] == ["°C", "m/s", "km", "mm", "hPa"])
        let imperial = UnitPreferences.imperial
        #expect(
            [UnitWords.symbol(imperial.temperature), UnitWords.symbol(imperial.wind),
             UnitWords.symbol(imperial.distance), UnitWords.symbol(imperial.precipitation),
             UnitWords.symbol(imperial.pressure)] == ["°F", "mph", "mi", "in", "inHg"])
    }

    @Test("an override wins over the preset; visibility follows distance unless set")
    func overrides() {
        var units = UnitPreferences(preset: .metric, wind: .kn)
        #expect(units.wind == .kn)
        #expect(units.temperature == .celsius)
        #expect(units.hasOverrides)
        #expect(units.overrides.map(\.quantity) == [.wind])
        units.distanceOverride = .mi
        #expect(units.visibility == .mi)
        units.visibilityOverride = .km
        #expect(units.visibility == .km)
        #expect(!units.withoutOverrides.hasOverrides)
    }

    @Test(
        "the clock follows LC_ALL, then LC_TIME, then LANG: 12 hours for en_US and the like, 24 elsewhere",
        arguments: [
            ([:], TimeFormat.h24), (["LANG": "en_US.UTF-8"], .h12), (["LANG": "en_GB.UTF-8"], .h24),
            (["LANG": "de_DE.UTF-8"], .h24), (["LANG": "C.UTF-8"], .h24), (["LANG": "fr_CA.UTF-8"], .h24),
            (["LANG": "en_AU.UTF-8"], .h12), (["LANG": "de_DE.UTF-8", "LC_TIME": "en_US.UTF-8"], .h12),
            (["LC_ALL": "de_DE.UTF-8", "LC_TIME": "en_US.UTF-8"], .h24), (["LC_ALL": "", "LANG": "en_US"], .h12),
            (["LANG": "en_US.UTF-8@euro"], .h12),
        ])
    func clockFromLocale(environment: [String: String], clock: TimeFormat) {
        #expect(TimeFormat.fromLocale(environment) == clock, "\(environment)")
    }

    @Test("a 12-hour clock writes midnight and noon as 12")
    func twelveHourClock() {
        #expect(TimeFormat.h12.clock(hour: 0, minute: 5) == "12:05 AM")
        #expect(TimeFormat.h12.clock(hour: 12, minute: 0) == "12:00 PM")
        #expect(TimeFormat.h12.clock(hour: 18, minute: 30) == "6:30 PM")
        #expect(TimeFormat.h24.clock(hour: 6, minute: 7) == "06:07")
    }

    @Test("a report converts every quantity from the one canonical forecast, and its units object says how")
    func report() throws {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let forecast = Forecast(
            provider: "test", attribution: "", coordinate: Coordinate(latitude: 51.5, longitude: -0.1), fetchedAt: now,
            utcOffsetSeconds: 0, timezone: nil,
            current: CurrentConditions(
                time: now, temperature: 20, windSpeed: 20, precipitation: 2.34, pressure: 1013.25, visibility: 10_000),
            hourly: [], daily: [])
        let units = UnitPreferences(preset: .uk, wind: .kn, pressure: .mmhg, time: .h12)
        let report = Report(ReportInputs(forecast: forecast, units: units), now: now)
        #expect(report.current?.temperature == 20)
        #expect(report.current?.windSpeed == 11)
        #expect(report.current?.pressure == 760)
        #expect(report.current?.precipitation == 2.3)
        #expect(report.units.system == "uk")
        #expect(report.units.windSpeed == "kn")
        #expect(report.units.pressure == "mmHg")
        #expect(report.units.distance == "mi")
        #expect(report.units.visibility == "mi")
        #expect(report.units.time == "12h")
        #expect(report.current?.visibility == 6.2)
        let json = String(decoding: try Report.makeEncoder().encode(report.units), as: UTF8.self)
        #expect(
            json
                == #"{"distance":"mi","precipitation":"mm","pressure":"mmHg","system":"uk","temperature":"°C","time":"12h","visibility":"mi","wind_speed":"kn"}"#
        )
        let bft = Report(ReportInputs(forecast: forecast, units: UnitPreferences(preset: .si, wind: .bft)), now: now)
        #expect(bft.current?.windSpeed == 4)
        #expect(bft.units.windSpeedUnit == .bft)
    }

    @Test("a report written before per-quantity units still decodes, with hPa and a 24-hour clock")
    func oldReportUnits() throws {
        let old = #"{"system":"metric","temperature":"°C","wind_speed":"km/h","precipitation":"mm"}"#
        let units = try Report.makeDecoder().decode(ReportUnits.self, from: Data(old.utf8))
        #expect(units.pressureUnit == .hpa)
        #expect(units.timeFormat == .h24)
        #expect(units.windSpeedUnit == .kmh)
        #expect(units.visibilitySymbol == "km")
    }
}
