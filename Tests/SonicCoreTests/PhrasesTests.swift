import Testing

@testable import SonicCore

/// The sentences whose numbers change their words.
@Suite struct PhrasesTests {
    @Test func countsAndNumbersReadAsSpoken() {
        #expect(Phrases.counted(1, "tag") == "1 tag" && Phrases.counted(3, "tag") == "3 tags")
        #expect(Phrases.times(1) == "1 time" && Phrases.times(1.5) == "1.5 times" && Phrases.times(4) == "4 times")
        #expect(
            Phrases.point(ImagePoint(x: 12.46, y: 3.04), level: 0.824, precise: true)
                == "x 12.5, y 3.0, intensity 82 percent")
        #expect(
            Phrases.point(ImagePoint(x: 12.46, y: 3.04), level: 0.824, precise: false)
                == "x 12, y 3, intensity 82 percent")
        #expect(Phrases.cellPosition(3, -1) == "cell 3 along a, minus 1 along b")
    }

    @Test func noticesSayHowManyOrNothing() {
        #expect(Phrases.nonFinitePixels(0) == nil)
        #expect(Phrases.nonFinitePixels(1) == "1 pixel holds no number, and plays as the lowest value.")
        #expect(Phrases.nonFinitePixels(7) == "7 pixels hold no number, and play as the lowest value.")
        #expect(Phrases.placedNow([]) == nil)
        #expect(
            Phrases.placedNow([Tag(id: 4, x: 1, y: 1)])
                == "Tag 4 was still being placed when the program stopped, and is placed now.")
        #expect(
            Phrases.placedNow([Tag(id: 4, x: 1, y: 1), Tag(id: 5, x: 2, y: 2)])
                == "Tags 4 to 5 were still being placed when the program stopped, and are placed now.")
    }

    @Test func listsTagsThenThoseWaitingThenTheCell() {
        #expect(Phrases.tagList([], waiting: 0, cell: nil) == "No tags.")
        #expect(Phrases.tagList([], waiting: 1, cell: nil) == "1 tag still being placed.")
        #expect(
            Phrases.tagList([(1, "x 1, y 2, intensity 5 percent")], waiting: 2, cell: "Unit cell: …")
                == "1 tag. Tag 1 at x 1, y 2, intensity 5 percent. 2 tags still being placed. Unit cell: …")
    }
}
