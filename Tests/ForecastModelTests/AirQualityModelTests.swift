import ForecastModel
import Foundation
import Testing

/// The air quality categories of both scales, their bar classes, the default scale by country, the
/// sentence and the report's `air` object.
@Suite("Air quality model")
struct AirQualityModelTests {
    static func air(_ scale: AQIScale, _ aqi: Double, dominant: Pollutant? = .pm2_5) -> AirQuality {
        AirQuality(
            provider: "open-meteo-air-quality", attribution: "Air quality by Open-Meteo.com (CC BY 4.0)",
            coordinate: Coordinate(latitude: 52.3, longitude: 6.9),
            time: Timestamps.parseUTC("2026-10-03T10:00:00Z")!, fetchedAt: Timestamps.parseUTC("2026-10-03T10:07:00Z")!,
            scale: scale, aqi: aqi, dominant: dominant, pm2_5: 22.1, pm10: 28.2, o3: 42, no2: 11.2, uvIndex: 2.1,
            pollen: Pollen(alder: 0, birch: 0, grass: 0.6, mugwort: 4.3, olive: 0, ragweed: 0.9))
    }

    @Test("European categories: 0–20 good, to 40 fair, 60 moderate, 80 poor, 100 very poor, above extremely poor")
    func europeanCategories() {
        let cases: [(Double, AirQualityCategory, Int, String)] = [
            (0, .good, 1, "aqi-good"), (20, .good, 1, "aqi-good"), (20.4, .fair, 2, "aqi-fair"),
            (40, .fair, 2, "aqi-fair"), (44, .moderate, 3, "aqi-moderate"), (61, .poor, 4, "aqi-poor"),
            (100, .veryPoor, 5, "aqi-very-poor"), (101, .extremelyPoor, 6, "aqi-very-poor"),
        ]
        for (aqi, category, level, className) in cases {
            let air = Self.air(.european, aqi)
            #expect(air.category == category, "EAQI \(aqi)")
            #expect(air.level == level, "EAQI \(aqi)")
            #expect(air.className == className, "EAQI \(aqi)")
        }
    }

    @Test("US categories: 0–50 good, to 100 moderate, 150 sensitive groups, 200 unhealthy, 300 very, above hazardous")
    func usCategories() {
        let cases: [(Double, AirQualityCategory, Int, String)] = [
            (50, .good, 1, "aqi-good"), (51, .moderate, 2, "aqi-fair"), (65, .moderate, 2, "aqi-fair"),
            (101, .unhealthyForSensitiveGroups, 3, "aqi-moderate"), (151, .unhealthy, 4, "aqi-poor"),
            (201, .veryUnhealthy, 5, "aqi-very-poor"), (301, .hazardous, 6, "aqi-very-poor"),
            (640, .hazardous, 6, "aqi-very-poor"),
        ]
        for (aqi, category, level, className) in cases {
            let air = Self.air(.us, aqi)
            #expect(air.category == category, "US AQI \(aqi)")
            #expect(air.level == level, "US AQI \(aqi)")
            #expect(air.className == className, "US AQI \(aqi)")
        }
        // `moderate` is rank 3 in Europe and rank 2 in the US; a category of the other scale has no rank.
        #expect(AQIScale.european.level(of: .moderate) == 3)
        #expect(AQIScale.us.level(of: .moderate) == 2)
        #expect(AQIScale.us.level(of: .fair) == nil)
        #expect(AQIScale.european.level(of: .hazardous) == nil)
    }

    @Test("The default scale: European in the EEA's countries and the rest of Europe, US elsewhere")
    func defaultScale() {
        for code in ["DE", "de", "FR", "NO", "CH", "GB", "TR", "RS", "XK", "UA", "IS", "MT", "CY", "FO"] {
            #expect(AQIScale.defaultScale(countryCode: code) == .european, "\(code)")
        }
        for code in ["US", "CA", "MX", "JP", "IN", "BR", "AU", "ZA", "RU", "MA", "IL"] {
            #expect(AQIScale.defaultScale(countryCode: code) == .us, "\(code)")
        }
        #expect(AQIScale.defaultScale(countryCode: nil) == .us)
        #expect(AQIScale.defaultScale(countryCode: "") == .us)
    }

    @Test("The sentence names the category, the scale, the index and the dominant pollutant")
    func text() {
        #expect(Self.air(.european, 44).text() == "Air quality moderate (European AQI 44, mostly PM2.5)")
        #expect(Self.air(.us, 65).text() == "Air quality moderate (US AQI 65, mostly PM2.5)")
        #expect(
            Self.air(.us, 120.4, dominant: .o3).text()
                == "Air quality unhealthy for sensitive groups (US AQI 120, mostly ozone)")
        #expect(Self.air(.european, 12, dominant: nil).text() == "Air quality good (European AQI 12)")
        #expect(!Self.air(.european, 12).isWorthMentioning)
        #expect(Self.air(.european, 21).isWorthMentioning)
    }

    @Test("The report's air object: snake_case, `class`, `pm2_5`, read back by the report decoder")
    func reportShape() throws {
        let value = ReportAir(Self.air(.european, 44), utcOffsetSeconds: 7200)
        let json = try #require(String(data: Report.makeEncoder().encode(value), encoding: .utf8))
        #expect(
            json
                == #"{"aqi":44,"aqi_scale":"european","attribution":"Air quality by Open-Meteo.com (CC BY 4.0)","#
                + #""category":"moderate","class":"aqi-moderate","dominant":"pm2_5","#
                + #""fetched_at":"2026-10-03T10:07:00Z","level":3,"no2":11.2,"o3":42,"#
                + #""pm10":28.2,"pm2_5":22.1,"pollen":{"alder":0,"birch":0,"grass":0.6,"mugwort":4.3,"olive":0,"ragweed":0.9},"#
                + #""text":"Air quality moderate (European AQI 44, mostly PM2.5)","#
                + #""time":"2026-10-03T12:00:00+02:00","uv_index":2.1}"#)
        // Digits have no case, so a snake_case-converting decoder sees `pm25`: still read back.
        #expect(try Report.makeDecoder().decode(ReportAir.self, from: Data(json.utf8)) == value)

        var bare = Self.air(.us, 151, dominant: nil)
        bare.pollen = Pollen()
        bare.pm2_5 = nil
        let sparse = try #require(
            String(data: Report.makeEncoder().encode(ReportAir(bare, utcOffsetSeconds: 0)), encoding: .utf8))
        #expect(!sparse.contains("pollen") && !sparse.contains("dominant") && !sparse.contains("pm2_5"))
        #expect(!sparse.contains("null"))
        #expect(sparse.contains(#""category":"unhealthy","class":"aqi-poor""#))
    }
}
