package bench

var benchDataTemp string
