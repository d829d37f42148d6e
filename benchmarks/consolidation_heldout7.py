"""The duplicate set's seventh held-out split ("heldout7"): 9 facts restated across sessions and 6 similar
memories in three repos of kinds not used before (embedded firmware, a multiplayer game server, an audio
plugin), annotated by claim as ``consolidation_data`` asks. Written before any change of the session that
added it, and first read by the benchmark in that session's final run; ``consolidation_data.build_duplicates``
imports it and lays it out like heldout6 (several sentences of a fact often said in one session).
"""

from __future__ import annotations

from consolidation_data import Fact, Similar

# sensor-firmware: embedded Rust (no_std, embassy) on an nRF52 with an SX1262 LoRa radio, a battery-powered
# soil-moisture sensor. match-server: an authoritative multiplayer game server in C# (.NET). reverb-plugin:
# a C++ (JUCE) reverb effect shipped as VST3 and AU. Most sentences of one fact share few words (facets).
FACTS_HELDOUT7: tuple[Fact, ...] = (
    Fact(
        "sensor-firmware",
        "no heap in the firmware, buffers have a fixed size",
        19,
        (
            "no alloc in the firmware. heapless::Vec or a plain array, never Vec/Box/String",
            "we have no global allocator on the nRF52, so a crate that needs the alloc feature won't link",
            "the readings ring buffer holds 64 samples (READINGS_CAP in src/config.rs), when it's full the "
            "oldest sample is dropped, not the new one",
            "check cargo size --release when you add a dependency, flash is 512K and the image is at 430K "
            "already",
            "heapless everywhere, Box and String don't exist for us",
        ),
        (
            'Read Cargo.toml\nheapless = "0.8"\n# no alloc: there is no #[global_allocator] in this crate',
            "Bash: cargo size --release -- -A | grep .text\n.text                   438212   0x27000",
        ),
        (
            "Can I collect the readings in a Vec before sending them?",
            "What happens to new readings when the buffer is full?",
        ),
        # 1 is 0 with what enforces it (no global allocator; the crates that need alloc follow from it):
        # one claim (unsure); 2 (the buffer drops its oldest sample) and 3 (the flash budget) are rules of
        # their own; 4 rewords 0
        claims=(0, 0, 1, 2, 0),
        observed_claims=(0, 2),
    ),
    Fact(
        "sensor-firmware",
        "report every 15 minutes, deep sleep in between",
        12,
        (
            "the sensor wakes every 15 minutes, sends one LoRa uplink and goes straight back to deep sleep",
            "never busy-wait on a peripheral, await embassy_time::Timer::after so the core can sleep",
            "average current has to stay under 20 µA, otherwise two AA cells don't last the two years we "
            "promise",
            "put the PPK2 on the board and measure before you merge anything that touches the radio or the "
            "timers",
        ),
        ("Read src/config.rs\npub const REPORT_INTERVAL_S: u64 = 15 * 60;",),
        (
            "How often does the sensor send a reading?",
            "Can I poll the ADC in a loop until the conversion is done?",
        ),
        # 3 is how the current budget (2) is checked before a merge: one claim with 2 (unsure)
        claims=(0, 1, 2, 2),
        observed_claims=(0,),
    ),
    Fact(
        "sensor-firmware",
        "only signed images boot, updates go to the inactive slot",
        5,
        (
            "release images are signed with the key in the HSM, mcuboot refuses anything unsigned",
            "an OTA update is written to the inactive slot and the swap only sticks once the new image "
            "confirms itself",
            "bump FW_VERSION in build.rs for every release, the bootloader won't go to a lower version",
        ),
        (
            "Bash: imgtool verify --key keys/release-pub.pem target/fw-signed.bin\n"
            "Image was correctly validated",
        ),
        ("Why won't the bootloader start the image I built on my laptop?",),
        claims=(0, 1, 2),
        observed_claims=(0,),
    ),
    Fact(
        "match-server",
        "the server is authoritative, clients send only inputs",
        25,
        (
            "the server is authoritative: clients send their inputs, never positions or hit results",
            "the simulation runs at a fixed 30 ticks a second, TickRate in src/Match/ServerConfig.cs",
            "no DateTime.Now or System.Random inside the simulation, a match has to replay exactly from its "
            "input log",
            "hit detection rewinds the other players to where the shooter saw them, by 200 ms at most",
            "if a client tells us it hit somebody we ignore that, the server works hits out itself",
        ),
        (
            "Read src/Match/ServerConfig.cs\npublic const int TickRate = 30; // Hz",
            "Grep 'DateTime.Now' src/Simulation: 0 matches",
        ),
        (
            "Can the client send its own position to save the server some work?",
            "How far back does lag compensation rewind?",
        ),
        # 4 rewords the 'never hit results' part of 0; 2 (determinism) and 3 (the rewind cap) are rules of
        # their own
        claims=(0, 1, 2, 3, 0),
        observed_claims=(1, 2),
    ),
    Fact(
        "match-server",
        "wire protocol: MessagePack with a version byte",
        14,
        (
            "packets are MessagePack, not JSON, at 30 Hz the bytes add up",
            "every message starts with the protocol version byte, bump PROTOCOL_VERSION when any field "
            "changes",
            "an outdated client gets VersionMismatch and a link to the store, we never translate old "
            "messages",
            "movement goes over the unreliable channel; chat, purchases and match end over the reliable one",
        ),
        ("Read src/Net/Protocol.cs\npublic const byte PROTOCOL_VERSION = 17;",),
        (
            "What do I need to change when I add a field to a packet?",
            "What happens when a client with an old build connects?",
        ),
        claims=(0, 1, 2, 3),
        observed_claims=(1,),
    ),
    Fact(
        "match-server",
        "suspected cheating is reported for review, never banned automatically",
        7,
        (
            "the server never bans anybody by itself, it files a report to the review queue",
            "the speed check trips when a player covers more than 1.2x max speed over 10 ticks",
            "don't tell the client it got flagged, cheat makers use that to tune their tools",
        ),
        ("Read src/AntiCheat/SpeedCheck.cs\nconst float Tolerance = 1.2f;\nconst int WindowTicks = 10;",),
        ("Should the server kick a player who fails the speed check?",),
        claims=(0, 1, 2),
        observed_claims=(1,),
    ),
    Fact(
        "reverb-plugin",
        "the audio thread never blocks",
        21,
        (
            "nothing in processBlock may allocate, lock a mutex or touch the disk",
            "the editor and the DSP share parameters through the std::atomic<float> pointers from the APVTS, "
            "no locks between them",
            "a new impulse response is loaded on a background thread and swapped in through an atomic "
            "pointer",
            "pluginval at strictness level 10 has to pass before we tag a release",
            "no DBG or printf in the audio callback, logging from there gives dropouts",
        ),
        (
            "Grep 'std::mutex' Source/DSP: 0 matches",
            "Bash: pluginval --strictness-level 10 --validate build/Reverb.vst3\nALL TESTS PASSED",
        ),
        (
            "Can I lock a mutex in processBlock while the impulse response is read?",
            "How should a new impulse response be loaded while audio is playing?",
        ),
        # 1 is how parameters reach the DSP without the lock 0 forbids: one claim with 0 (unsure); 2 (how
        # an impulse response gets in) and 3 (the release gate) are of their own; 4 is 0's no disk or I/O
        claims=(0, 0, 1, 2, 0),
        observed_claims=(0, 2),
    ),
    Fact(
        "reverb-plugin",
        "parameter ids never change",
        10,
        (
            "never rename a parameter id, DAW projects look parameters up by that string",
            "a new parameter goes at the end of createParameterLayout with the next version hint",
            "old presets must still load, setStateInformation gives parameters they lack their default",
            "the display name can change whenever we like, the id can't",
        ),
        (
            "Read Source/Parameters.cpp\nlayout.add(std::make_unique<juce::AudioParameterFloat>("
            'juce::ParameterID{"predelay", 3}, "Pre-delay", 0.0f, 250.0f, 20.0f));',
        ),
        (
            "Can I rename the 'size' parameter to 'room_size'?",
            "How do I add a parameter without breaking saved projects?",
        ),
        # 3 is 0 seen from the other side (the name may change, the id not): one claim (unsure)
        claims=(0, 1, 2, 0),
        observed_claims=(1,),
    ),
    Fact(
        "reverb-plugin",
        "the DSP copes with any sample rate and block size",
        8,
        (
            "don't assume 44.1k, everything is derived from the sampleRate prepareToPlay gets",
            "hosts send blocks of any length, 0 and odd sizes included, never count on 512",
            "delay times are kept in milliseconds and turned into samples in prepareToPlay",
        ),
        ("Bash: ctest -R BlockSizesAndRates\n1/1 Test #4: BlockSizesAndRates ...   Passed    2.31 sec",),
        ("Which sample rate does the reverb assume?",),
        # 2 is how 0 is done for delay times: one claim with 0 (unsure); the test run shows neither claim
        # alone (it covers both): a claim of its own
        claims=(0, 1, 0),
        observed_claims=(2,),
    ),
)

SIMILAR_HELDOUT7: tuple[Similar, ...] = (
    Similar(
        "sensor-firmware",
        "no heap in the firmware, buffers have a fixed size",
        (
            "note",
            "the defmt log buffer over RTT is 1 KB, lines that don't fit are dropped while no probe is "
            "attached",
        ),
        "How big is the defmt log buffer?",
    ),
    Similar(
        "sensor-firmware",
        "report every 15 minutes, deep sleep in between",
        (
            "decision",
            "The LoRa uplink uses spreading factor SF9 and falls back to SF12 after three missed acks.",
        ),
        "Which spreading factor does the uplink use?",
    ),
    Similar(
        "match-server",
        "the server is authoritative, clients send only inputs",
        (
            "note",
            "clients render the other players 100 ms behind the newest snapshot, snapshots go out every "
            "second tick",
        ),
        "How far behind do clients render the other players?",
    ),
    Similar(
        "match-server",
        "wire protocol: MessagePack with a version byte",
        (
            "decision",
            "Voice chat runs through a hosted voice provider, not through the game server's channels.",
        ),
        "Does voice chat go through the game server?",
    ),
    Similar(
        "reverb-plugin",
        "the audio thread never blocks",
        ("decision", "The reverb oversamples 2x in the realtime path and 4x when the host renders offline."),
        "How much does the reverb oversample when the host renders offline?",
    ),
    Similar(
        "reverb-plugin",
        "parameter ids never change",
        ("note", "factory presets are XML files in Resources/Presets, compiled in through BinaryData"),
        "Where are the factory presets kept?",
    ),
)
