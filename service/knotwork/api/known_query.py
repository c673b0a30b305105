"""Every route takes only its own query parameters, each once: one app-wide dependency.

Starlette hands a route every query parameter and FastAPI drops those the route does not
declare, so a client's option was ignored without a word: ``POST /retrieve?top_k=1`` answered
8 citations, ``POST /sync?dry_run=true`` ran a real sync, ``GET /notes?tags=x`` listed every
note. None of the routes takes a list, so a parameter given twice (``tag=a&tag=b``) is
refused too, rather than read as its last value. The docs pages (outside the schema) are left
alone: Swagger's OAuth redirect carries parameters of its own.

A route's names are worked out on its first request with a query string and kept on the route
(``_taken_once``): walking its dependency tree cost every such request.
"""

from __future__ import annotations

from fastapi import HTTPException, Request
from fastapi.dependencies.models import Dependant
from fastapi.routing import APIRoute

from knotwork.api.deps import get_core, has_api_key, require_api_key

# The attribute of a route its names are kept in. On the route object itself: a route compares
# by its path, endpoint and methods, so it can key neither a dict nor a weak one, and by its id
# a dict would outlive it (an app made per test) and could meet its id again.
_TAKEN = "_knotwork_query_taken"


def _taken(dependant: Dependant) -> list[str]:
    """The query parameters a route declares, its dependencies' included, in their order."""
    names = [field.alias for field in dependant.query_params]
    for sub in dependant.dependencies:
        names += [name for name in _taken(sub) if name not in names]
    return names


def _taken_once(route: APIRoute) -> tuple[str, ...]:
    """``_taken`` of the route, walked once: a route's dependency tree is fixed once built.
    Two first requests at once may both walk it (sync dependencies run in threads): the same
    names, either kept."""
    taken: tuple[str, ...] | None = getattr(route, _TAKEN, None)
    if taken is None:
        taken = tuple(_taken(route.dependant))
        setattr(route, _TAKEN, taken)
    return taken


def _keyed(route: APIRoute) -> bool:
    """Whether the route needs the API key (``deps.Authorized``): a caller without it is told
    401 first, as before, not which parameters the route takes."""
    return any(dep.dependency is require_api_key for dep in route.dependencies)


def known_query(request: Request) -> None:
    """422 naming the query parameters the route does not take (and those it does), or those
    given more than once; before the route's other dependencies, so nothing is done."""
    route = request.scope.get("route")
    names = [name for name, _ in request.query_params.multi_items()]
    if not names or not isinstance(route, APIRoute) or not route.include_in_schema:
        return
    taken = _taken_once(route)
    unknown = sorted({name for name in names if name not in taken})
    repeated = sorted({name for name in names if names.count(name) > 1} - set(unknown))
    if not unknown and not repeated:
        return
    if _keyed(route):
        require_api_key(has_api_key(get_core(request), request.headers.get("x-api-key")))
    if unknown:
        takes = ", ".join(taken) if taken else "no query parameters"
        raise HTTPException(
            422,
            f"unknown query parameter {', '.join(map(repr, unknown))}; {request.method} "
            f"{route.path_format} takes {takes}",
        )
    raise HTTPException(
        422, f"query parameter {', '.join(map(repr, repeated))} is given more than once"
    )
