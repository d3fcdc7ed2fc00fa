"""Event specifications as a user types them after `tdprof stat -e`.

This machine (and most VMs) has no CPU PMU: the hardware names are accepted but
cannot be counted, so these tests use software events for what must run and check
the messages for what must fail.
"""
import os

import tdp


def stat(*args):
    return tdp.run("stat", *args)


def test_unknown_event_names_it_and_suggests():
    r = stat("-e", "cyclse", "--", "true")
    tdp.expect_exit(r, 2)
    tdp.expect_in("event 'cyclse' is not known on this machine", r.err, "stderr", r)
    tdp.expect_in("did you mean 'cycles'", r.err, "stderr", r)


def test_unknown_event_in_a_list_and_a_group():
    r = stat("-e", "task-clock,{page-faults,contxt-switches}", "--", "true")
    tdp.expect_exit(r, 2)
    tdp.expect_in("event 'contxt-switches' is not known", r.err, "stderr", r)
    tdp.expect_in("'context-switches'", r.err, "stderr", r)


def test_absent_pmu_is_named():
    if os.path.isdir("/sys/bus/event_source/devices/cpu"):
        raise tdp.Skip("this machine has a 'cpu' PMU")
    r = stat("-e", "cpu/event=0x3c/", "--", "true")
    tdp.expect_exit(r, 2)
    tdp.expect_in("PMU 'cpu' does not exist on this machine", r.err, "stderr", r)
    # the hint lists the PMUs that do exist
    tdp.expect_in("PMUs here:", r.err, "stderr", r)
    tdp.expect_in("software", r.err, "stderr", r)


def test_syntax_error_quotes_the_list_and_position():
    r = stat("-e", "task-clock,,page-faults", "--", "true")
    tdp.expect_exit(r, 2)
    tdp.expect_in("cannot parse event list 'task-clock,,page-faults': empty event at position 12",
                  r.err, "stderr", r)
    r = stat("-e", "{task-clock,page-faults", "--", "true")
    tdp.expect_exit(r, 2)
    tdp.expect_in("missing '}' for this '{' at position 1", r.err, "stderr", r)
    r = stat("-e", "task-clock:q", "--", "true")
    tdp.expect_exit(r, 2)
    tdp.expect_in("unknown modifier at position 12", r.err, "stderr", r)


def test_software_event_with_modifier_runs():
    r = stat("-e", "task-clock:u", "--", "true")
    tdp.expect_exit(r, 0)
    tdp.expect_in("task-clock:u", r.out + r.err, "output", r)


def test_software_group_runs():
    r = stat("-e", "{task-clock,page-faults}", "--", "true")
    tdp.expect_exit(r, 0)
    out = r.out + r.err
    tdp.expect_in("task-clock", out, "output", r)
    tdp.expect_in("page-faults", out, "output", r)


def test_workload_status_comes_back_with_custom_events():
    r = stat("-e", "cs,migrations", "--", "sh", "-c", "exit 3")
    tdp.expect_exit(r, 3)


tdp.main(globals())
