/// The page's style and script, inline: the file opens offline, from a CI artifact.
extension HTMLReport {
    static let style = """
        :root{color-scheme:light dark;--bg:#fff;--fg:#1b1b1b;--mute:#5c5c5c;--line:#d0d0d0;--ok:#0b6b2f;--okbg:#e3f4e8;
        --deny:#134a8a;--denybg:#e4edf9;--bad:#a4000f;--badbg:#fde2e2;--skip:#6b5300;--skipbg:#fbf1d0}
        @media (prefers-color-scheme:dark){:root{--bg:#16181b;--fg:#e8e8e8;--mute:#a8a8a8;--line:#3a3d42;--ok:#7fdc9c;
        --okbg:#17351f;--deny:#9cc3ff;--denybg:#172a44;--bad:#ff9b9b;--badbg:#4a1717;--skip:#f1d27a;--skipbg:#3d3315}}
        body{background:var(--bg);color:var(--fg);font:14px/1.4 system-ui,sans-serif;margin:1rem 2rem}
        h1{font-size:1.4rem}h2{font-size:1.15rem;margin-top:2rem}.v-ok{color:var(--ok)}.v-bad{color:var(--bad)}
        .facts{display:grid;grid-template-columns:max-content 1fr;gap:.1rem 1rem;margin:0}.facts dt{color:var(--mute)}
        .facts dd{margin:0}.t{content-visibility:auto;contain-intrinsic-size:auto 12rem;margin:1rem 0}
        table{border-collapse:collapse}caption{text-align:left;font-weight:600;padding:.2rem 0}caption small{color:var(--mute);font-weight:400}
        th,td{border:1px solid var(--line);padding:.2rem .4rem;text-align:left;vertical-align:top}
        td.none{color:var(--mute)}button{font:inherit;border:1px solid transparent;border-radius:3px;padding:0 .3rem;
        margin:1px;cursor:pointer;display:block;text-align:left}
        .c-allowed{background:var(--okbg);color:var(--ok)}.c-denied{background:var(--denybg);color:var(--deny)}
        .c-leak,.c-lockout,.c-error{background:var(--badbg);color:var(--bad);font-weight:700}
        .c-skipped{background:var(--skipbg);color:var(--skip)}.legend span{padding:0 .3rem;border-radius:3px}
        button:focus-visible,button.hit{outline:2px solid var(--fg)}.failures h3{font-size:1rem;margin:.8rem 0 .2rem}
        .failures ul{margin:0;padding-left:1.2rem}.failures li{margin:.15rem 0}.failures a{color:var(--bad);font-weight:600}tr.l-error td:first-child{color:var(--bad);font-weight:700}
        #detail{position:fixed;right:1rem;bottom:1rem;max-width:min(46rem,90vw);max-height:70vh;overflow:auto;
        background:var(--bg);border:1px solid var(--line);box-shadow:0 2px 12px #0004;padding:.8rem 1rem}
        #detail pre,td pre{white-space:pre-wrap;margin:.2rem 0}code{font-size:.9em}
        @media print{#detail{display:none}button{border:1px solid var(--line);background:none!important}
        .t{content-visibility:visible}body{margin:0}}
        """

    static let script = """
        (function(){var data=null,box=document.getElementById('detail');
        function text(t,s){var e=document.createElement(t);e.textContent=s;return e}
        function show(i){data=data||JSON.parse(document.getElementById('checks').textContent);var e=data.checks[i];if(!e)return;
        var d={suite:e[0],name:e[1],actor:e[2],verdict:e[3],expected:e[4],got:e[5],message:e[6],sql:e[7],at:e[8],
        policies:data.policies[e[9]]};
        box.replaceChildren();var h=text('h2',d.suite+': '+d.name);h.id='detail-title';h.tabIndex=-1;box.append(h);
        var dl=document.createElement('dl');[['result',d.verdict],['actor',d.actor],['expected',d.expected],['got',d.got],
        ['message',d.message],['declared at',d.at]].forEach(function(p){if(p[1]){dl.append(text('dt',p[0]),text('dd',p[1]))}});
        box.append(dl);if(e[10]){box.append(text('h3','Responsible policies'));var r=document.createElement('ul');
        e[10].forEach(function(p){r.append(text('li',p))});box.append(r)}
        if(d.sql){box.append(text('h3','SQL'),text('pre',d.sql))}
        box.append(text('h3','Policies on this command'+(e[11]?' for '+e[11]:'')));if(d.policies.length){var ul=document.createElement('ul');
        d.policies.forEach(function(p){ul.append(text('li',p))});box.append(ul)}else{box.append(text('p','none'))}
        var c=text('button','close');c.onclick=function(){box.hidden=true};box.append(c);box.hidden=false;box.dataset.i=i;h.focus()}
        function go(){var m=/^#c(\\d+)$/.exec(location.hash);if(!m)return;
        var b=document.querySelector('button[data-i="'+m[1]+'"]');if(b){b.scrollIntoView({block:'center'});b.classList.add('hit')}
        show(+m[1])}
        document.addEventListener('click',function(e){var a=e.target.closest('a[href^="#c"]');if(a){e.preventDefault();
        history.replaceState(null,'',a.getAttribute('href'));go();return}
        var b=e.target.closest('button[data-i]');if(b){show(+b.dataset.i);
        history.replaceState(null,'','#c'+b.dataset.i)}});
        document.addEventListener('keydown',function(e){if(e.key==='Escape')box.hidden=true});
        window.addEventListener('hashchange',go);go()})();
        """
}
