"""A side's page as HTML: the map as SVG, the status line, the checklist and the roster, each a
fragment of its own, so that the first response carries the whole page (it reads on any browser,
with script off) and a live update replaces the fragments that changed.

Everything shown is what :func:`serve.side_state.side_state` holds; every text is escaped.
"""

from __future__ import annotations

from html import escape
from typing import Any

from reports.table_colours import (
    AREA_COLOURS,
    CREST_COLOUR,
    HILL_EDGE,
    HILL_FILL,
    LINEAR_COLOURS,
    TABLE_COLOUR,
)
from rules.battle.terrain import TerrainType

PARTS = ("status", "map", "checklist", "roster", "reaction")
#: Past this many units on a side's map, their names show only when it is zoomed in.
MANY_UNITS = 40


def _pts(points: list[list[float]]) -> str:
    return " ".join(f"{x:g},{y:g}" for x, y in points)


def map_svg(state: dict[str, Any]) -> str:
    """The table as the side sees it: terrain, its own units and the enemy units it sees, and the
    ghosts of those it saw before."""
    w, h = state["table"]
    # a big battle's names show once the map is zoomed in (the whole table would be all names)
    many = ' class="many"' if len(state["units"]) + len(state["ghosts"]) > MANY_UNITS else ""
    out = [
        f'<svg id="map"{many} xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {w:g} {h:g}" '
        f'data-table="{w:g} {h:g}" preserveAspectRatio="xMidYMid meet" role="img" '
        f'aria-label="The table as the {escape(state["side_name"])} side sees it">',
        f'<rect x="0" y="0" width="{w:g}" height="{h:g}" fill="{TABLE_COLOUR}"/>',
    ]
    terrain = sorted(state["terrain"], key=lambda f: (f["type"] != "hill", f["linear"]))
    for f in terrain:
        t = TerrainType(f["type"])
        if f["linear"]:
            colour, width, casing = LINEAR_COLOURS.get(t, ("#777777", 0.3, None))
            if casing:
                out.append(
                    f'<polyline points="{_pts(f["points"])}" fill="none" stroke="{casing}" '
                    f'stroke-width="{width * 1.6:g}" stroke-linecap="round"/>'
                )
            out.append(
                f'<polyline points="{_pts(f["points"])}" fill="none" stroke="{colour}" '
                f'stroke-width="{max(width, 0.15):g}" stroke-linecap="round"/>'
            )
        elif t == TerrainType.HILL:
            out.append(
                f'<polygon points="{_pts(f["points"])}" fill="{HILL_FILL.get(f["level"], HILL_FILL[2])}" '
                f'stroke="{HILL_EDGE}" stroke-width="0.15"/>'
            )
            if f["crest"]:
                out.append(
                    f'<polyline points="{_pts(f["crest"])}" fill="none" stroke="{CREST_COLOUR}" '
                    'stroke-width="0.2" stroke-dasharray="0.8 0.4"/>'
                )
        else:
            fill, edge = AREA_COLOURS.get(t, ("#cccccc", "#888888"))
            out.append(
                f'<polygon points="{_pts(f["points"])}" fill="{fill}" stroke="{edge}" stroke-width="0.12"/>'
            )
    font = max(0.9, min(w, h) / 60)
    for g in state["ghosts"]:
        (x, y) = g["corners"][0]
        out.append(
            f'<g class="ghost"><polygon points="{_pts(g["corners"])}" fill="#9e9e9e" fill-opacity="0.35" '
            'stroke="#555" stroke-width="0.12" stroke-dasharray="0.4 0.3"/>'
            f'<text x="{x:g}" y="{y - 0.4:g}" font-size="{font * 0.85:g}" fill="#444">'
            f"{escape(g['name'])} (last seen turn {g['turn']})</text></g>"
        )
    for u in state["units"]:
        colour = escape(state["colours"].get(u["side"], "#555555"))
        (x, y) = u["at"]
        opacity = "1" if u["own"] else "0.8"
        out.append(
            f'<g class="unit {"own" if u["own"] else "enemy"}" data-id="{escape(u["id"])}">'
            f"<title>{escape(u['name'])}</title>"
            f'<polygon points="{_pts(u["corners"])}" fill="{colour}" fill-opacity="{opacity}" '
            'stroke="#111" stroke-width="0.1"/>'
            f'<polyline points="{_pts(u["front"])}" stroke="#fff" stroke-width="0.25"/>'
            f'<text x="{x:g}" y="{y - 0.6:g}" font-size="{font:g}" text-anchor="middle" fill="#111" '
            f'stroke="#fff" stroke-width="{font / 8:g}" paint-order="stroke">{escape(u["name"])}</text></g>'
        )
    out.append("</svg>")
    return "".join(out)


def status_html(state: dict[str, Any]) -> str:
    pips = "".join(
        f"<li>{escape(b['name'])} ({escape(b['brigadier'] or 'no Brigadier')}): "
        f"{b['pips']} Staff Pip{'s' if b['pips'] != 1 else ''}"
        + (f", {b['reserved']} reserved" if b["reserved"] else "")
        + "</li>"
        for b in state["brigades"]
    )
    return (
        f'<div id="status"><h1>{escape(state["battle"])}: the {escape(state["side_name"])} side</h1>'
        f'<p class="turn">Turn {state["turn"]}, {escape(state["phase"])}; '
        f"the {escape(state['to_act'])} side to act</p>"
        f'<details><summary>Staff Pips</summary><ul class="pips">{pips}</ul></details></div>'
    )


def checklist_html(state: dict[str, Any]) -> str:
    items = "".join(
        f"<li>{escape(i['text'])}"
        + (f' <span class="rule">{escape(i["rule"])}</span>' if i["rule"] else "")
        + "</li>"
        for i in state["checklist"]
    )
    body = f"<ul>{items}</ul>" if items else "<p>Nothing of yours is left open in this phase.</p>"
    return f'<section id="checklist"><h2>This phase</h2>{body}</section>'


def roster_html(state: dict[str, Any]) -> str:
    rows = []
    for u in state["units"]:
        if u["own"]:
            what = (
                f"{u['stands']}/{u['stands_start']} stands, {u['micro_hits']} micro-hits, "
                f"{escape(u['health'])}, {escape(u['quality'])}"
            )
        else:
            what = f"{u['stands']} stands (seen {'then' if state.get('then') else 'now'})"
        markers = ", ".join(u["markers"])
        colour = escape(state["colours"].get(u["side"], "#555555"))
        rows.append(
            f'<tr class="{"own" if u["own"] else "enemy"}"><td style="color:{colour}">{escape(u["name"])}</td><td>{escape(u["kind"])}</td>'
            f"<td>{what}</td><td>{escape(u['formation'])}</td><td>{escape(markers)}</td></tr>"
        )
    for g in state["ghosts"]:
        rows.append(
            f'<tr class="ghost"><td>{escape(g["name"])}</td><td></td><td>last seen turn {g["turn"]}</td>'
            "<td></td><td></td></tr>"
        )
    return (
        '<table id="roster"><thead><tr><th>Unit</th><th>Kind</th><th>State</th><th>Formation</th>'
        f"<th>Markers</th></tr></thead><tbody>{''.join(rows)}</tbody></table>"
    )


def reaction_html(window: dict[str, Any] | None) -> str:
    """The Trigger Window open for the side, with its defenders' reactions and a form to answer;
    empty when none is open."""
    if not window:
        return '<section id="reaction" hidden></section>'
    blocks = []
    for d in window["defenders"]:
        opts = []
        for o in d["options"]:
            if o["allowed"]:
                opts.append(
                    f'<label><input type="radio" name="{escape(d["id"])}" value="{escape(o["key"])}"> '
                    f"{escape(o['label'])}"
                    + (f' <span class="chance">{escape(o["chance"])}</span>' if o.get("chance") else "")
                    + "</label>"
                )
            else:
                opts.append(
                    f'<div class="closed">{escape(o["label"])}: {escape(o["reason"])}'
                    + (f' <span class="rule">{escape(o["rule"])}</span>' if o.get("rule") else "")
                    + "</div>"
                )
        why = f'<p class="small">{escape(d["why"])}</p>' if d.get("why") else ""
        blocks.append(f"<fieldset><legend>{escape(d['name'])}</legend>{why}{''.join(opts)}</fieldset>")
    return (
        f'<section id="reaction"><h2>{escape(window["title"])}</h2><p>{escape(window["text"])}</p>'
        f'<form method="post"><input type="hidden" name="window" value="{escape(window["id"])}">'
        f'{"".join(blocks)}<button type="submit">Send to the umpire</button></form>'
        '<p class="small">The umpire sees your answer and decides.</p></section>'
    )


def fragments(state: dict[str, Any], window: dict[str, Any] | None = None) -> dict[str, str]:
    return {
        "status": status_html(state),
        "map": map_svg(state),
        "checklist": checklist_html(state),
        "roster": roster_html(state),
        "reaction": reaction_html(window),
    }


STYLE = """
body{font-family:system-ui,sans-serif;margin:0;padding:0 .5rem;background:#fafaf5;color:#111}
h1{font-size:1.1rem;margin:.4rem 0}h2{font-size:1rem;margin:.6rem 0 .3rem}
.turn{margin:.2rem 0}.rule,.small{color:#555;font-size:.85em}
#mapbox{width:100%;max-height:75vh;border:1px solid #999;background:#eef0dc;touch-action:none;overflow:hidden}
#map{width:100%;height:100%;display:block}svg.many:not(.near) text{display:none}
table{border-collapse:collapse;width:100%;font-size:.9rem}td,th{border-bottom:1px solid #ddd;padding:.2rem;text-align:left}
tr.ghost{color:#777;font-style:italic}
#find{width:100%;padding:.4rem;font-size:1rem;margin-bottom:.3rem;box-sizing:border-box}
#lost{background:#b71c1c;color:#fff;padding:.4rem;display:none}#lost.on{display:block}
#reaction{border:2px solid #b26a00;padding:.4rem;margin:.5rem 0;background:#fff8e1}
#reaction label{display:block;padding:.3rem 0}.closed{color:#666;padding:.2rem 0}
#back{background:#dbe8f7;border:1px solid #7a9cc6;padding:.4rem;margin:.4rem 0}#back p{margin:.2rem 0}
#back nav a{display:inline-block;padding:.4rem .6rem;margin:.1rem;border:1px solid #7a9cc6;border-radius:.3rem;
background:#fff;color:#17324f;text-decoration:none}#back form{display:flex;gap:.4rem;align-items:center}
#back input[type=range]{flex:1}.lookback{margin:.3rem 0}
button{font-size:1rem;padding:.5rem 1rem}
@media (max-height:500px){h1{font-size:.95rem;display:inline}.turn{display:inline;margin-left:.5rem}#mapbox{max-height:86vh}}.zoom{font-size:1.2rem;padding:.2rem .8rem}
"""

SCRIPT = """
(function(){
var live=document.body.dataset.live, lost=document.getElementById('lost');
function wire(){var svg=document.getElementById('map');if(!svg)return;
 var t=svg.dataset.table.split(' ').map(Number);var vb=window.__vb||[0,0,t[0],t[1]];
 function set(){svg.setAttribute('viewBox',vb.join(' '));window.__vb=vb;svg.classList.toggle('near',vb[2]<t[0]*0.45);}set();
 var pts={},last=null;
 function zoom(f,cx,cy){var nw=Math.min(t[0]*2,Math.max(2,vb[2]*f)),nh=nw*vb[3]/vb[2];
  vb=[cx-(cx-vb[0])*nw/vb[2],cy-(cy-vb[1])*nh/vb[3],nw,nh];set();}
 function at(e){var r=svg.getBoundingClientRect(),s=Math.max(vb[2]/r.width,vb[3]/r.height);
  return [vb[0]+(e.clientX-r.left)*s,vb[1]+(e.clientY-r.top)*s,s];}
 svg.onpointerdown=function(e){svg.setPointerCapture(e.pointerId);pts[e.pointerId]=[e.clientX,e.clientY];};
 svg.onpointermove=function(e){if(!pts[e.pointerId])return;var ids=Object.keys(pts);
  if(ids.length==1){var p=at(e),o=pts[e.pointerId];vb[0]-=(e.clientX-o[0])*p[2];vb[1]-=(e.clientY-o[1])*p[2];set();}
  else if(ids.length==2){var a=pts[ids[0]],b=pts[ids[1]],d0=Math.hypot(a[0]-b[0],a[1]-b[1]);
   pts[e.pointerId]=[e.clientX,e.clientY];a=pts[ids[0]];b=pts[ids[1]];var d1=Math.hypot(a[0]-b[0],a[1]-b[1]);
   if(d0>0&&d1>0){var c=at({clientX:(a[0]+b[0])/2,clientY:(a[1]+b[1])/2});zoom(d0/d1,c[0],c[1]);}return;}
  pts[e.pointerId]=[e.clientX,e.clientY];};
 svg.onpointerup=svg.onpointercancel=function(e){delete pts[e.pointerId];};
 svg.onwheel=function(e){e.preventDefault();var p=at(e);zoom(e.deltaY>0?1.2:1/1.2,p[0],p[1]);};
 document.getElementById('zin').onclick=function(){zoom(1/1.5,vb[0]+vb[2]/2,vb[1]+vb[3]/2);};
 document.getElementById('zout').onclick=function(){zoom(1.5,vb[0]+vb[2]/2,vb[1]+vb[3]/2);};
 document.getElementById('zfit').onclick=function(){vb=[0,0,t[0],t[1]];set();};}
function find(){var f=document.getElementById('find');if(!f)return;
 var q=f.value.toLowerCase();
 document.querySelectorAll('#roster tbody tr').forEach(function(r){r.hidden=q&&r.textContent.toLowerCase().indexOf(q)<0;});
 f.oninput=find;}
function answer(){var form=document.querySelector('#reaction form');if(!form)return;
 form.onsubmit=function(e){e.preventDefault();fetch(location.pathname,{method:'POST',body:new URLSearchParams(new FormData(form))})
  .then(function(r){return r.text();}).then(function(t){var p=document.createElement('p');p.textContent=t;form.appendChild(p);});};}
wire();find();answer();
var range=document.getElementById('when');if(range){range.onchange=function(){range.form.submit();};}
if(!live||!window.EventSource)return;
var es=new EventSource(live);
es.onopen=function(){lost.className='';};
es.onerror=function(){lost.className='on';};
es.addEventListener('update',function(m){var msg=JSON.parse(m.data);lost.className='';
 var have=Number(document.body.dataset.version||0);if(msg.v<=have)return;document.body.dataset.version=msg.v;
 var d=msg.parts;
 Object.keys(d).forEach(function(k){var el=document.getElementById(k==='map'?'map':k);
  if(el){var box=document.createElement('div');box.innerHTML=d[k];el.replaceWith(box.firstChild);}});
 wire();find();answer();lost.className='';});
})();
"""


def back_html(base: str, k: int, last: int, label: str, side_name: str) -> str:
    """The strip of a page looking back: which moment it is, steps back and on (links, which work
    without script), a slider over the ends of the phases played, and the way back to now."""
    at = f"{escape(base)}/at"
    steps = [
        ("Start", 0, k > 0),
        ("◀ Back", k - 1, k > 0),
        ("On ▶", k + 1, k < last),
    ]
    links = " ".join(f"<a href='{at}?k={n}'>{escape(text)}</a>" for text, n, ok in steps if ok)
    return (
        "<section id='back'>"
        f"<p><b>Looking back: {escape(label)}</b>, as the {escape(side_name)} side knew it then. "
        "The game goes on meanwhile.</p>"
        f"<nav>{links} <a href='{escape(base)}'>Back to now</a></nav>"
        f"<form method='get' action='{at}'><input id='when' type='range' name='k' min='0' max='{last}' "
        f"value='{k}' aria-label='The end of which phase'><button type='submit'>Show</button></form>"
        "</section>"
    )


def page(
    state: dict[str, Any],
    window: dict[str, Any] | None = None,
    live: str = "events",
    version: int = 0,
    back: str | None = None,
    look_back: str | None = None,
) -> str:
    """The side's whole page, as it stands (the fragments in place), with the script that keeps it
    up to date through ``live`` (server-sent events); ``look_back``: where its Look back link
    goes. With ``back`` (:func:`back_html`) it is a moment of the past: it does not follow the
    game, and shows no checklist or Trigger Window."""
    f = fragments(state, None if back else window)
    top = back if back else f["reaction"]
    if look_back and not back:
        top += f"<p class='lookback'><a href='{escape(look_back)}'>Look back at an earlier phase</a></p>"
    return (
        "<!doctype html><html lang='en'><head><meta charset='utf-8'>"
        "<meta name='viewport' content='width=device-width,initial-scale=1'>"
        f"<title>{escape(state['battle'])}: {escape(state['side_name'])}</title><style>{STYLE}</style></head>"
        f"<body data-live='{'' if back else escape(live)}' data-version='{version}'>"
        "<div id='lost' role='alert'>The link to the umpire's laptop is lost: trying again.</div>"
        f"{f['status']}{top}"
        "<div><button class='zoom' id='zin' type='button' aria-label='Zoom in'>+</button> "
        "<button class='zoom' id='zout' type='button' aria-label='Zoom out'>&minus;</button> "
        "<button class='zoom' id='zfit' type='button'>Whole table</button></div>"
        f"<div id='mapbox' style='aspect-ratio:{state['table'][0]:g}/{state['table'][1]:g}'>{f['map']}</div>"
        f"{'' if back else f['checklist']}"
        # the search stays where it is while the roster under it follows the game
        "<section><h2>Order of battle</h2>"
        "<input id='find' type='search' placeholder='Find a unit' aria-label='Find a unit'>"
        f"{f['roster']}</section>"
        f"<script>{SCRIPT}</script></body></html>"
    )
