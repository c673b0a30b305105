"""How `knotwork retrieve` draws a path's hops: a hop walked against its relation's direction
points back, so "A <-LINKS_TO- B" reads as B links to A."""

from __future__ import annotations

from knotwork.cli.read import _arrow, path_line


def test_followed_relation_points_forward() -> None:
    assert _arrow("LINKS_TO") == "-LINKS_TO->"


def test_relation_walked_backwards_points_back() -> None:
    # retrieve/walk.py names a hop walked against its direction "<-R".
    assert _arrow("<-LINKS_TO") == "<-LINKS_TO-"


def test_drawn_path_reads_one_way() -> None:
    path = {
        "relations": ["<-LINKS_TO", "MENTIONS"],
        "nodes": ["note:people/Dana.md", "note:Meeting.md", "note:Acme.md"],
    }
    drawn = path_line(path)
    assert drawn == "note:people/Dana.md <-LINKS_TO- note:Meeting.md -MENTIONS-> note:Acme.md"
    assert "-<-" not in drawn
