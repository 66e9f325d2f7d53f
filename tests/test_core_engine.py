"""Unit tests of the shared engine: lobby, start, versions, stale inputs,
deadlines, pause/resume, host controls, missed-deadline reports and the seed
commitment. Station is the game underneath, but nothing here is Station's rules."""

from __future__ import annotations

import hashlib
import json

import pytest
from station_helpers import EASY, HOST, T0, Driver, new, players, start

from gameflow.core import actions as A
from gameflow.core.engine import apply, legal, new_game, view
from gameflow.core.events import Event, Kind
from gameflow.core.result import Accepted, Rejected
from gameflow.core.state import HOST_VIEW, LOBBY
from gameflow.games.station.actions import Choose, Vote

pytestmark = pytest.mark.core


def lobby(n: int = 0) -> Driver:
    return Driver(new(n))


# -- lobby -------------------------------------------------------------------


def test_join_adds_player_and_announces() -> None:
    d = lobby()
    events = d.ok(A.Join("u1", None, "  Ana   Lie "))
    assert d.game.players == ("u1",)
    assert d.game.names == ("Ana Lie",)  # whitespace normalised
    assert d.game.missed == (0,)
    assert {e.kind for e in events} == {Kind.ANNOUNCE, Kind.CHANGED}


def test_join_twice_is_refused() -> None:
    d = lobby()
    d.ok(A.Join("u1", None, "Ana"))
    d.refused(A.Join("u1", None, "Other"), "joined")


@pytest.mark.parametrize("name", ["ANA", "ana", " Ana ", "aNa"])
def test_duplicate_names_are_case_insensitive(name: str) -> None:
    d = lobby()
    d.ok(A.Join("u1", None, "Ana"))
    d.refused(A.Join("u2", None, name), "name_taken")


@pytest.mark.parametrize("name", ["", "   ", "x" * 33])
def test_bad_names_are_refused(name: str) -> None:
    d = lobby()
    d.refused(A.Join("u1", None, name), "bad_name")


@pytest.mark.parametrize("player", ["", "@host", "@x"])
def test_bad_player_ids_are_refused(player: str) -> None:
    d = lobby()
    d.refused(A.Join(player, None, "Ana"), "bad_player")


def test_join_full_game_is_refused() -> None:
    d = lobby(15)
    d.refused(A.Join("extra", None, "Extra"), "full")


def test_leave_removes_player_and_their_counters() -> None:
    d = lobby(3)
    d.ok(A.Leave("bo"))
    assert d.game.players == ("ana", "cy")
    assert d.game.names == ("Ana", "Cy")
    assert d.game.missed == (0, 0)
    d.refused(A.Leave("bo"), "not_in_game")


def test_kick_is_host_only() -> None:
    d = lobby(3)
    d.refused(A.Kick("ana", None, "bo"), "host_only")
    d.ok(A.Kick(HOST, None, "bo"))
    assert d.game.players == ("ana", "cy")
    d.refused(A.Kick(HOST, None, "nobody"), "not_in_game")


def test_leave_and_kick_refused_after_start() -> None:
    d = start(5)
    d.refused(A.Leave("ana"), "started")
    d.refused(A.Kick(HOST, None, "ana"), "started")
    d.refused(A.Join("zed", None, "Zed"), "started")


def test_set_option_host_only_and_typed() -> None:
    d = lobby(5)
    d.refused(A.SetOption("ana", None, "traps", False), "host_only")
    d.refused(A.SetOption(HOST, None, "nonsense", 1), "bad_option")
    # bool option: 1 and 0 and the yes/no words of every language are read as
    # a bool and kept as one (issue #32, item 2); any other int or word is not
    d.refused(A.SetOption(HOST, None, "traps", 2), "bad_value")
    d.refused(A.SetOption(HOST, None, "traps", "maybe"), "bad_value")
    d.ok(A.SetOption(HOST, None, "traps", 0))
    assert d.game.option("traps") is False
    d.ok(A.SetOption(HOST, None, "traps", "ja"))
    assert d.game.option("traps") is True
    # int option: a bool or a float is not an int, a negative int is refused
    d.refused(A.SetOption(HOST, None, "infiltrators", True), "bad_value")
    d.refused(A.SetOption(HOST, None, "infiltrators", 2.0), "bad_value")
    d.refused(A.SetOption(HOST, None, "infiltrators", -1), "bad_value")
    # float option: a str that is no duration is refused, one that is ("90s",
    # "5m", issue #32 item 2) is read as seconds, an int is widened to float
    d.refused(A.SetOption(HOST, None, "mission_seconds", "soon"), "bad_value")
    d.ok(A.SetOption(HOST, None, "mission_seconds", "5m"))
    assert d.game.option("mission_seconds") == 300.0
    d.refused(A.SetOption(HOST, None, "mission_seconds", True), "bad_value")
    d.ok(A.SetOption(HOST, None, "mission_seconds", 60))
    assert d.game.option("mission_seconds") == 60.0
    assert isinstance(d.game.option("mission_seconds"), float)
    d.ok(A.SetOption(HOST, None, "traps", False))
    assert d.game.option("traps") is False


def test_set_option_refused_after_start() -> None:
    d = start(5)
    d.refused(A.SetOption(HOST, None, "traps", False), "started")


def test_set_language() -> None:
    d = lobby(2)
    d.refused(A.SetLanguage("ana", None, "en"), "host_only")
    d.refused(A.SetLanguage(HOST, None, "de"), "bad_language")
    for lang in ("sr", "en", "nb"):
        d.ok(A.SetLanguage(HOST, None, lang))
        assert d.game.lang == lang
        assert view(d.game, None)["lang"] == lang


def test_new_game_checks_options_and_language() -> None:
    with pytest.raises(ValueError):
        new_game("station", "g", HOST, 1, options={"nonsense": 1})
    with pytest.raises(ValueError):
        new_game("station", "g", HOST, 1, lang="de")
    with pytest.raises(KeyError):
        new_game("chess", "g", HOST, 1)


# -- start -------------------------------------------------------------------


def test_start_is_host_only() -> None:
    d = lobby(5)
    d.refused(A.Start("ana"), "host_only")
    d.ok(A.Start(HOST))
    assert d.game.running
    assert d.game.phase.name == "mission"
    assert d.game.phase.round == 1
    d.refused(A.Start(HOST), "started")


@pytest.mark.parametrize("n", [0, 1, 4])
def test_start_needs_enough_players(n: int) -> None:
    d = lobby(n)
    d.refused(A.Start(HOST), "player_count")


def test_lobby_legal_actions() -> None:
    d = lobby(5)
    assert [s.kind for s in legal(d.game, "ana")] == ["leave"]
    assert [s.kind for s in legal(d.game, HOST)] == ["start", "kick", "set_option", "set_language"]
    kick = legal(d.game, HOST)[1].field("target")
    assert kick is not None and kick.options == tuple(players(5))
    option = legal(d.game, HOST)[2].field("name")
    assert option is not None and "mission_seconds" in option.options
    lang = legal(d.game, HOST)[3].field("lang")
    assert lang is not None and lang.options == ("nb", "sr", "en")


# -- versions and rejections -------------------------------------------------


def test_version_bumps_once_per_accepted_action_and_never_on_rejection() -> None:
    game = new(5)
    v = game.version
    assert v == 5  # five joins
    for action, ok in [
        (A.Start("ana"), False),
        (A.Start(HOST), True),
        (A.Resume(HOST), False),
        (A.Pause(HOST), True),
        (A.Pause(HOST), False),
        (A.Resume(HOST), True),
        (Choose("ana", None, 1, "guard"), True),
        (Choose("ana", None, 1, "guard"), False),
        (Vote("ana", None, None), False),
    ]:
        result = apply(game, action, T0)
        if ok:
            assert isinstance(result, Accepted), (action, result)
            assert result.state.version == v + 1
            game, v = result.state, v + 1
        else:
            assert isinstance(result, Rejected), action
    assert game.version == v == 9


def test_deadline_that_advances_several_phases_still_counts_once() -> None:
    d = start(5, options={"auto_advance": True})
    v = d.game.version
    for p in d.players:
        d.choose(p, 1, "guard")  # the last one ends the mission phase too
    assert d.game.phase.name == "discussion"
    assert d.game.version == v + 5


# -- stale inputs and deadlines ------------------------------------------------


def test_stale_game_input_is_refused() -> None:
    d = start(5)
    seq = d.game.phase.seq
    d.refused(Choose("ana", seq - 1, 1, "guard"), "stale")
    d.refused(Choose("ana", seq + 1, 1, "guard"), "stale")
    d.ok(Choose("ana", seq, 1, "guard"))


def test_stale_host_advance_is_refused() -> None:
    d = start(5)
    d.deadline()
    d.refused(A.Advance(HOST, d.game.phase.seq - 1), "stale")
    d.ok(A.Advance(HOST, d.game.phase.seq))


def test_deadline_stale_seq_is_refused() -> None:
    d = start(5)
    seq = d.game.phase.seq
    d.now = d.game.phase.deadline or 0.0
    d.refused(A.Deadline(None, seq - 1), "stale")
    d.refused(A.Deadline(None, None), "stale")
    d.ok(A.Deadline(None, seq))
    d.refused(A.Deadline(None, seq), "stale")  # a second delivery of the same job


def test_deadline_not_due_before_its_time() -> None:
    d = start(5)
    due = d.game.phase.deadline
    assert due == T0 + 600.0
    d.now = due - 0.5
    d.refused(A.Deadline(None, d.game.phase.seq), "not_due")
    d.now = due
    d.ok(A.Deadline(None, d.game.phase.seq))
    assert d.game.phase.name == "discussion"


def test_deadline_refused_while_paused() -> None:
    d = start(5)
    d.host(A.Pause)
    d.now += 10_000
    d.refused(A.Deadline(None, d.game.phase.seq), "paused")


def test_deadline_refused_in_lobby_and_after_the_end() -> None:
    d = lobby(5)
    d.refused(A.Deadline(None, 0), "not_started")
    d = start(5)
    d.host(A.End)
    d.refused(A.Deadline(None, d.game.phase.seq), "over")


# -- pause and resume -------------------------------------------------------------


def test_pause_and_resume_keep_the_remaining_time_exactly() -> None:
    d = start(5)
    due = d.game.phase.deadline
    assert due is not None
    d.now = T0 + 123.25
    d.host(A.Pause)
    assert d.game.phase.paused
    assert d.game.phase.deadline is None
    assert d.game.phase.paused_left == due - (T0 + 123.25)
    assert view(d.game, None)["paused"] is True
    d.now = T0 + 5000.0
    events = d.host(A.Resume)
    assert not d.game.phase.paused
    assert d.game.phase.deadline == T0 + 5000.0 + (due - (T0 + 123.25))
    timers = [e for e in events if e.kind == Kind.TIMER]
    assert [(t.at, t.phase) for t in timers] == [(d.game.phase.deadline, d.game.phase.seq)]


def test_pause_and_resume_refusals() -> None:
    d = start(5)
    d.refused(A.Pause("ana"), "host_only")
    d.refused(A.Resume(HOST), "not_paused")
    d.host(A.Pause)
    d.refused(A.Pause(HOST), "paused")
    d.refused(A.Resume("ana"), "host_only")
    lob = lobby(5)
    lob.refused(A.Pause(HOST), "not_started")


def test_pause_after_the_deadline_resumes_with_nothing_left() -> None:
    d = start(5)
    d.now = (d.game.phase.deadline or 0) + 30
    d.host(A.Pause)
    assert d.game.phase.paused_left == 0.0
    d.now += 100
    d.host(A.Resume)
    assert d.game.phase.deadline == d.now
    d.deadline()
    assert d.game.phase.name == "discussion"


def _all_ready_while_paused() -> Driver:
    """A game that would move on by itself, paused, and every choice made."""
    d = start(5, options={"auto_advance": True})
    d.host(A.Pause)
    for p in d.players:
        d.choose(p, 1, "guard")
    return d


def test_no_auto_advance_while_paused() -> None:
    d = _all_ready_while_paused()
    assert d.game.phase.name == "mission"  # everyone is ready, but we are paused
    assert not d.game.rules.choices.count(None)


# -- host advance and end ----------------------------------------------------------


def test_host_advance_only_when_nobody_is_awaited() -> None:
    d = start(5)
    d.refused(A.Advance("ana"), "host_only")
    d.refused(A.Advance(HOST), "not_ready")
    assert "advance_early" not in [s.kind for s in legal(d.game, HOST)]
    for p in d.players[:4]:
        d.choose(p, 1, "guard")
    rej = d.refused(A.Advance(HOST), "not_ready")
    assert rej.message.param("names") == ("Eli",)
    d.choose("eli", 1, "guard")
    assert d.game.phase.name == "mission"  # auto advance is off
    assert "advance_early" in [s.kind for s in legal(d.game, HOST)]
    d.host(A.Advance)
    assert d.game.phase.name == "discussion"
    # nobody owes anything in discussion: the host may move on at once
    assert "advance_early" in [s.kind for s in legal(d.game, HOST)]
    d.host(A.Advance)
    assert d.game.phase.name == "vote"
    d.refused(A.Advance(HOST), "not_ready")


def test_host_advance_names_nobody_when_who_is_awaited_is_a_secret() -> None:
    """At a Traitors night who is awaited is a secret (only traitors vote): the
    refusal of an early advance names nobody, and says the night ends at its
    deadline, as it does once the traitors have voted (issue #35, 16). (A real
    night, not a patched rules object: the compiled core's classes can't be patched.)"""
    from gameflow.replay import setup_game

    script = {
        "game": "traitors",
        "players": ["ana", "bo", "cy", "dag", "eli", "fia"],
        "seed": 1,
        "options": {"pacing": "fast", "missions": "host", "final_day": 12},
        "setup": {"roles": {"ana": "traitor", "bo": "traitor"}},
    }
    game, _ = setup_game(script)
    while game.phase.name != "night":
        result = apply(game, A.Deadline(None, game.phase.seq), game.phase.deadline or 0.0)
        assert isinstance(result, Accepted)
        game = result.state
    rej = apply(game, A.Advance(game.host), game.phase.started + 1)
    assert isinstance(rej, Rejected) and rej.code == "not_early"
    assert rej.message.msgid.startswith("This phase can't be ended early")
    assert rej.message.params == ()


def test_host_controls_in_legal() -> None:
    d = start(5)
    kinds = [s.kind for s in legal(d.game, HOST)]
    assert kinds == ["pause", "end"]
    d.host(A.Pause)
    assert [s.kind for s in legal(d.game, HOST)] == ["resume", "end"]
    assert [s.kind for s in legal(d.game, "ana")] == ["choose"]


def test_host_ends_the_game() -> None:
    d = start(5)
    d.refused(A.End("ana"), "host_only")
    events = d.host(A.End)
    assert d.game.over
    assert d.game.winner is None
    assert d.game.ended_by_host
    assert Kind.OVER in {e.kind for e in events}
    pub = view(d.game, None)
    assert pub["over"] is True and pub["winner"] is None
    assert pub["seed"] == d.game.seed
    d.refused(A.End(HOST), "over")
    d.refused(Choose("ana", None, 1, "guard"), "over")
    assert legal(d.game, "ana") == ()
    assert legal(d.game, HOST) == ()


def test_host_ends_a_game_still_in_its_lobby() -> None:
    d = lobby(3)
    d.host(A.End)
    assert d.game.over and d.game.winner is None
    pub = view(d.game, None)
    assert pub["seed"] == d.game.seed
    assert view(d.game, HOST_VIEW)["over"] is True
    assert view(d.game, "ana")["over"] is True


# -- missed deadlines ---------------------------------------------------------------


def host_reports(events: tuple[Event, ...]) -> list[Event]:
    return [e for e in events if e.kind == Kind.HOST]


def test_two_missed_deadlines_in_a_row_are_reported_once() -> None:
    d = start(5, infiltrators=["ana", "bo"], rounds={r: {"plans": EASY} for r in (1, 2, 3)})
    everyone_but_eli = [p for p in d.players if p != "eli"]
    reports = []
    # mission 1: eli misses (1)
    for p in everyone_but_eli:
        d.choose(p, 1, "guard")
    reports += host_reports(d.deadline())
    assert d.game.missed[d.seat("eli")] == 1
    reports += host_reports(d.deadline())  # discussion: nobody owes anything
    assert d.game.missed[d.seat("eli")] == 1
    # vote 1: eli misses again (2): reported
    for p in everyone_but_eli:
        d.vote(p, None)
    events = d.deadline()
    rep = host_reports(events)
    assert len(rep) == 1
    assert rep[0].to == HOST
    assert rep[0].text is not None and rep[0].text.param("name") == "Eli"
    assert d.game.missed[d.seat("eli")] == 2
    assert "missed" in view(d.game, HOST_VIEW)
    assert view(d.game, HOST_VIEW)["missed"]["eli"] == 2
    # mission 2: eli misses a third time: no second report
    for p in everyone_but_eli:
        d.choose(p, 1, "guard")
    assert host_reports(d.deadline()) == []
    assert reports == []
    assert d.game.missed[d.seat("eli")] == 3
    # acting resets the count
    d.deadline()
    d.vote("eli", None)
    assert d.game.missed[d.seat("eli")] == 0
    for p in everyone_but_eli:
        d.vote(p, None)
    d.deadline()
    # one miss after the reset is not reported
    for p in everyone_but_eli:
        d.choose(p, 1, "guard")
    assert host_reports(d.deadline()) == []
    assert d.game.missed[d.seat("eli")] == 1


def test_every_missing_player_is_reported() -> None:
    d = start(5)
    d.deadline()  # mission: all miss
    d.deadline()  # discussion
    events = d.deadline()  # vote: all miss a second time
    names = sorted(str(e.text.param("name")) for e in host_reports(events) if e.text)
    assert names == ["Ana", "Bo", "Cy", "Dag", "Eli"]


# -- auto advance ------------------------------------------------------------------


def test_auto_advance_when_every_active_player_is_ready() -> None:
    d = start(5, options={"auto_advance": True})
    for p in d.players[:4]:
        d.choose(p, 1, "guard")
        assert d.game.phase.name == "mission"
    d.choose("eli", 1, "guard")
    assert d.game.phase.name == "discussion"
    assert d.game.phase.round == 1


def test_auto_advance_off_waits_for_the_deadline() -> None:
    d = start(5)
    for p in d.players:
        d.choose(p, 1, "guard")
    assert d.game.phase.name == "mission"


# -- views and the seed commitment ---------------------------------------------------


def test_public_view_commits_to_the_seed_and_reveals_it_at_the_end() -> None:
    d = Driver(new(5, seed="seed-kept-secret-42"))
    digest = hashlib.sha256(b"seed-kept-secret-42").hexdigest()
    for who in (None, HOST_VIEW, "ana"):
        v = view(d.game, who)
        assert v["seed_sha256"] == digest
        assert "seed" not in v
    d.host(A.Start)
    while not d.game.over:
        for who in (None, HOST_VIEW, "ana"):
            v = view(d.game, who)
            assert v["seed_sha256"] == digest
            assert "seed" not in v
            assert "seed-kept-secret" not in json.dumps(v)
        d.deadline()
    v = view(d.game, None)
    assert v["seed"] == d.game.seed
    assert v["seed_sha256"] == digest


def test_view_of_a_stranger_is_an_error() -> None:
    d = start(5)
    with pytest.raises(KeyError):
        view(d.game, "stranger")


def test_lobby_view_has_no_game_part() -> None:
    d = lobby(3)
    v = view(d.game, None)
    assert v["phase"] == LOBBY
    assert "station" not in v
    assert [p["id"] for p in v["players"]] == ["ana", "bo", "cy"]


def test_views_are_pure() -> None:
    d = start(5)
    assert view(d.game, None) == view(d.game, None)
    assert view(d.game, "ana") == view(d.game, "ana")


def test_game_action_from_a_stranger_is_refused() -> None:
    d = start(5)
    d.refused(Choose("stranger", None, 1, "guard"), "not_in_game")
    d.refused(Choose(HOST, None, 1, "guard"), "not_in_game")


def test_game_action_before_start_is_refused() -> None:
    d = lobby(5)
    d.refused(Choose("ana", None, 1, "guard"), "not_started")


def test_resume_rearms_the_reminder_before_the_deadline() -> None:
    d = start(5)
    due = d.game.phase.deadline
    assert due is not None
    d.host(A.Pause)
    d.now += 1000
    events = d.host(A.Resume)
    reminders = [e for e in events if e.kind == Kind.REMINDER]
    assert [(r.at, r.phase) for r in reminders] == [
        ((d.game.phase.deadline or 0) - 60.0, d.game.phase.seq)
    ]


def test_advance_refused_while_paused() -> None:
    d = start(5, options={"auto_advance": False})
    for p in d.players:
        d.choose(p, 1, "guard")
    d.host(A.Pause)
    d.refused(A.Advance(HOST), "paused")
    d.host(A.Resume)
    d.host(A.Advance)
    assert d.game.phase.name == "discussion"


def test_everyone_ready_during_a_pause_moves_on_at_resume() -> None:
    d = _all_ready_while_paused()
    assert d.game.phase.name == "mission" and d.game.phase.paused
    d.host(A.Resume)
    assert d.game.phase.name == "discussion" and not d.game.phase.paused


def test_new_game_checks_option_types() -> None:
    with pytest.raises(ValueError, match="mission_seconds"):
        new_game("station", "g", HOST, 1, options={"mission_seconds": "soon"})
    with pytest.raises(ValueError, match="no setting called nonsense"):
        new_game("station", "g", HOST, 1, options={"nonsense": 1})
    game = new_game("station", "g", HOST, 1, options={"mission_seconds": 300})
    assert game.option("mission_seconds") == 300.0


def test_only_the_hosts_view_counts_inputs() -> None:
    """The version rises with every accepted input, secret ones too (a Traitors
    night's votes), so only the host's view carries it: in the public view (the
    TV) or a player's, its jump over a night would tell how many traitors acted."""
    from gameflow.core.state import with_version

    game = start(5).game
    later = with_version(game, game.version + 9)
    for viewer in (None, game.players[0]):
        assert "version" not in view(game, viewer)
        assert view(game, viewer) == view(later, viewer)
    assert view(game, HOST_VIEW)["version"] == game.version
