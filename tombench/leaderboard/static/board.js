// Missing values sort last in both directions; two missing values are equal (the sort is stable, so they keep
// their order instead of being reshuffled).
function compareCells(x, y, num, asc){
  var xm = (x === undefined || x === ''), ym = (y === undefined || y === '');
  if (xm && ym) return 0;
  if (xm) return 1;
  if (ym) return -1;
  var c = num ? parseFloat(x) - parseFloat(y) : x.localeCompare(y);
  return asc ? c : -c;
}
// "vs next" pairs each row with the row shown below it: after a re-sort or a filter it is looked up again in the
// board's table of every pair's test (data-pairs: {"i": {"j": [text, tooltip, sort value]}}).
function refreshVsNext(table){
  var pairs = JSON.parse(table.dataset.pairs || '{}');
  var head = table.querySelector('th[data-key="vs_next"]');
  if (!head) return;
  var col = Array.prototype.indexOf.call(head.parentNode.children, head);
  var rows = Array.prototype.filter.call(table.tBodies[0].rows, function(r){ return !r.hidden; });
  rows.forEach(function(r, k){
    var cell = r.cells[col], next = rows[k + 1];
    var v = next ? (pairs[r.dataset.idx] || {})[next.dataset.idx] : null;
    cell.textContent = v ? v[0] : '';
    cell.title = v ? v[1] : '';
    cell.dataset.sort = (v && v[2] !== null) ? v[2] : '';
  });
}
document.querySelectorAll('table.board').forEach(function(table){
  table.querySelectorAll('th').forEach(function(th, col){
    th.addEventListener('click', function(){
      var asc = th.getAttribute('aria-sort') !== 'ascending';
      table.querySelectorAll('th').forEach(function(h){h.removeAttribute('aria-sort');});
      th.setAttribute('aria-sort', asc ? 'ascending' : 'descending');
      var num = th.dataset.kind === 'num';
      var body = table.tBodies[0];
      var rows = Array.prototype.slice.call(body.rows);
      rows.sort(function(a, b){
        return compareCells(a.cells[col].dataset.sort, b.cells[col].dataset.sort, num, asc);
      });
      rows.forEach(function(r){body.appendChild(r);});
      refreshVsNext(table);
    });
  });
});
function applyFilters(){
  var open = document.getElementById('f-open').checked;
  var maxSize = parseFloat(document.getElementById('f-size').value);
  var text = document.getElementById('f-text').value.toLowerCase();
  document.querySelectorAll('table.board tbody tr').forEach(function(tr){
    var ok = true;
    if (open && tr.dataset.open !== 'yes') ok = false;
    if (!isNaN(maxSize)) { var s = parseFloat(tr.dataset.size); if (isNaN(s) || s > maxSize) ok = false; }
    if (text && tr.dataset.model.indexOf(text) < 0) ok = false;
    tr.hidden = !ok;
  });
  document.querySelectorAll('table.board').forEach(refreshVsNext);
}
['f-open','f-size','f-text'].forEach(function(id){
  var el = document.getElementById(id); el.addEventListener('input', applyFilters);
  el.addEventListener('change', applyFilters);
});
