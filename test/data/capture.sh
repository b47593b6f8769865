dmesg -n 1
D=/sys/kernel/debug/kstats
insmod /modules/kstats.ko
echo trace read start vfs_read > $D/_control
echo trace runq start sched:sched_wakeup end sched:sched_switch > $D/_control
echo trace read5 bits 5 start vfs_read method kretprobe > $D/_control
echo trace idle bits 0 start syscall:getppid > $D/_control
insmod /modules/kstats_demo.ko
for f in /bin/busybox /proc/cpuinfo /proc/meminfo /proc/stat /proc/interrupts; do
	dd if=$f of=/dev/null bs=4k 2>/dev/null
done
sleep 1
mkdir -p /tmp/cap/_interval
cat $D/_interval/read > /tmp/cap/_interval/read
dd if=/bin/busybox of=/dev/null bs=4k 2>/dev/null
cat $D/_interval/read > /tmp/cap/_interval/read.2
for n in read GAP-read runq GAP-runq read5 idle demo_hrtimer_late _control; do cat $D/$n > /tmp/cap/$n; done
echo stop > $D/read5
cat $D/read5 > /tmp/cap/read5.stopped
echo CAPTURE-BEGIN
tar c -C /tmp/cap . | gzip | base64
echo CAPTURE-END
rmmod kstats_demo
for n in read runq read5 idle; do echo remove $n > $D/_control; done
rmmod kstats
